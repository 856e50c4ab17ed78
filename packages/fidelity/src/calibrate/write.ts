/**
 * Where `fidelity calibrate` writes: calibration.json (`--out`) and the
 * calibrated policy (`--policy-out`), guarded like every output (output/out-file.ts):
 * checked before anything is measured, never into an input run or over an
 * input archive, never one file for both, an earlier calibration (or
 * calibrated policy) replaced, any other file only with force, written
 * atomically.
 */
import { checkOutFiles, writeOutFiles, type OutFile } from '../output/out-file.js';
import { Policy } from '../schemas/policy.js';
import { escapeDel } from '../json-file.js';
import { parseStrictJson, SIDE_FILE_LIMITS } from '../side-file.js';
import { TOOL_NAME } from '../version.js';
import { Calibration } from './schema.js';

/** Where calibrate's files go. */
export interface CalibrateOutputs {
  /** calibration.json. */
  out: string;
  /** The calibrated policy, when wanted. */
  policyOut?: string;
  /** Replace files that are not an earlier calibration or calibrated policy. */
  force?: boolean;
}

/** calibration.json's bytes, as compare's bundle seals it too. */
export function calibrationJsonText(calibration: Calibration): string {
  return `${escapeDel(JSON.stringify(calibration, null, 1))}\n`;
}

/** A policy file's bytes, written like calibration.json. */
export function policyJsonText(policy: Policy): string {
  return `${escapeDel(JSON.stringify(policy, null, 1))}\n`;
}

function parsed(bytes: Buffer): unknown {
  const json = parseStrictJson(bytes);
  return json.ok ? json.value : undefined;
}

function outFiles(outputs: CalibrateOutputs): OutFile[] {
  const files: OutFile[] = [
    {
      file: outputs.out,
      option: '--out',
      maxBytes: SIDE_FILE_LIMITS.calibration,
      isOurs: (bytes) => Calibration.safeParse(parsed(bytes)).data?.tool.name === TOOL_NAME,
    },
  ];
  if (outputs.policyOut !== undefined) {
    files.push({
      file: outputs.policyOut,
      option: '--policy-out',
      maxBytes: SIDE_FILE_LIMITS.policy,
      isOurs: (bytes) => Policy.safeParse(parsed(bytes)).data?.calibration_status === 'calibrated',
    });
  }
  return files;
}

/**
 * Refuses, before any run is read, a name or path past the file system's
 * limits (OUT_PATH_INVALID), outputs that would write into an input run or
 * over an input archive, its side files or a hard link of one of its files
 * (OUT_INSIDE_INPUT), one file for both (USAGE),
 * a folder or a file that is not an earlier calibration or calibrated policy
 * without force (OUT_EXISTS), or an unreachable path (OUT_NOT_WRITABLE).
 */
export async function checkCalibrateOutputs(runs: readonly string[], outputs: CalibrateOutputs): Promise<void> {
  await checkOutFiles(outFiles(outputs), runs, Boolean(outputs.force));
}

/** Writes calibration.json and, when given, the policy: both or neither, never after `signal` aborted. */
export async function writeCalibrateOutputs(outputs: CalibrateOutputs, calibration: Calibration, policy: Policy | undefined, signal?: AbortSignal): Promise<void> {
  const files = [{ file: outputs.out, option: '--out', text: calibrationJsonText(calibration) }];
  if (outputs.policyOut !== undefined && policy) files.push({ file: outputs.policyOut, option: '--policy-out', text: policyJsonText(policy) });
  await writeOutFiles(files, signal);
}
