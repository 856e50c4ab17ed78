import { existsSync } from 'node:fs';
import path from 'node:path';
import { FidelityError, loadCalibration, loadPolicy, merge, type CiOutputs, type Policy } from 'media-fidelity';
import { reportFailure } from '../io.js';
import { readDecodeTimeout } from '../options.js';
import { abortOnSigint, existingOut, gateOptions, generatedAtFromEnv, progressPrinter, reportBundle, sayReplacedAndSkipped } from './compare.js';
import { checkCiTargets, ciTargets, summarizeRefusal, writeCiTargets } from './ci-outputs.js';
import type { CommandArgs } from './types.js';

/**
 * --remeasure N|all as the library's `remeasure`; undefined without it (the default, one pair per
 * partial). N is any whole number from 0 to 2^53 - 1 (the largest a JSON number holds exactly); more
 * than a partial's pairs re-measures all of them.
 */
export function remeasureOption(value: unknown): number | 'all' | undefined {
  if (value === undefined) return undefined;
  if (value === 'all') return 'all';
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
    throw new FidelityError('USAGE', `--remeasure ${value} is more than ${Number.MAX_SAFE_INTEGER}, the largest whole number it takes; to re-measure every pair give --remeasure all`);
  }
  throw new FidelityError('USAGE', `Expected a whole number of pairs per partial (0 to ${Number.MAX_SAFE_INTEGER}; more than a partial holds means all of them) or all for --remeasure but received ${JSON.stringify(value)}`);
}

/** `fidelity merge`: every shard's partial plus the runs into the bundle `compare` would write (docs/scale-out.md). */
/** `fidelity merge`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  const progress = progressPrinter(io, io.errIsTty || Boolean(values.progress));
  const interrupt = abortOnSigint(signal);
  let targets: CiOutputs | null = null;
  try {
    if (positionals.length < 2) throw new FidelityError('USAGE', 'merge needs the baseline run and every candidate run, as given to each shard');
    const partials = (values.partials as string[] | undefined) ?? [];
    if (partials.length === 0) throw new FidelityError('USAGE', 'merge needs --partials <dir> (a partial, or a folder of partials)');
    if (typeof values.out !== 'string' || values.out === '') throw new FidelityError('USAGE', 'merge needs --out <dir>');
    const gate = gateOptions(values);
    // `--partials a b` leaves b as a run: say so rather than fail verification on it.
    const stray = positionals.find((p) => existsSync(path.join(p, 'partial.json')));
    if (stray !== undefined) throw new FidelityError('USAGE', `${stray} is a partial, not a run: give --partials before each partial folder, or give their parent folder once`);
    const wanted = ciTargets(values);
    await checkCiTargets(wanted, values.out, [...positionals, ...partials, ...[values.policy, values.calibration].filter((v): v is string => typeof v === 'string')]);
    targets = wanted;
    const policy: Policy | undefined = typeof values.policy === 'string' ? await loadPolicy(values.policy) : undefined;
    const generatedAt = generatedAtFromEnv();
    const calibration = typeof values.calibration === 'string' ? await loadCalibration(values.calibration) : undefined;
    const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
    const remeasure = remeasureOption(values.remeasure);
    const timeoutMs = readDecodeTimeout(values);
    const [baseline, ...candidates] = positionals as [string, ...string[]];
    const before = existingOut(values.out);
    const result = await merge(baseline, candidates, {
      partials,
      out: values.out,
      force: Boolean(values.force),
      requireDigest: Boolean(values['require-digest']),
      requireProvider: Boolean(values['require-provider']),
      signal: interrupt.signal,
      ...(calibration ? { calibration } : {}),
      ...(alpha !== undefined ? { alpha } : {}),
      ...(values.repeatability ? { repeatability: true } : {}),
      ...(remeasure !== undefined ? { remeasure } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
      ...(policy ? { policy } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.finish();
    // As compare says them: a replaced bundle, a --repeatability or --alpha that measured or changed nothing.
    sayReplacedAndSkipped(io, 'merge', values, before, result);
    await writeCiTargets(targets, result);
    return reportBundle(io, json, result, gate);
  } catch (error) {
    progress.finish();
    await summarizeRefusal(targets, 'merge', error);
    return reportFailure(io, error, json);
  } finally {
    interrupt.dispose();
  }
}
