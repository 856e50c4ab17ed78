/**
 * One side of a diff, read as evidence from elsewhere: a bundle's report.json
 * only when the bundle's seal holds (every file re-hashed, as verify-bundle
 * does, and report.json's bytes those the seal names), or a bare report.json
 * read as it is. Either way the text is bounded in size, refused with a byte
 * order mark, a duplicate key or deep nesting, and must match the Report
 * schema; a pair, run or comparison named twice is refused too, because
 * matching by key would have to pick one.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { hasBom, scanJson } from '../archive/json-strict.js';
import { checkBundleSeal } from '../bundle-check/seal-check.js';
import { FidelityError, type Problem } from '../errors.js';
import { Report } from '../schemas/report.js';

/** Larger than the report.json of any campaign this tool writes (a full-size one is a few MB); a bigger one is refused unread. */
export const DEFAULT_MAX_REPORT_BYTES = 256 * 1024 * 1024;

/** What a side of a diff was and how it was read. */
export interface DiffSide {
  /** The path given, or `(object)` for a report passed as a value. */
  input: string;
  /** `bundle`: a sealed bundle folder; `report`: a report.json file read as it is (no seal); `object`: a value from the caller. */
  kind: 'bundle' | 'report' | 'object';
  /** True when the bundle's SHA256SUMS was checked and holds (always false for `report` and `object`). */
  sealed: boolean;
  /** Files re-hashed against the seal (null unless `bundle`). */
  files: number | null;
  /** SHA-256 of the report.json bytes read (null for `object`). */
  report_sha256: string | null;
  generated_at: string;
  tool_version: string;
}

/** A side once read: the raw JSON (every field, also those this version's schema does not name) and the parsed report. */
export interface LoadedSide {
  side: DiffSide;
  raw: Record<string, unknown>;
  report: Report;
}

function refuse(code: string, label: string, message: string, problems?: Problem[]): never {
  throw new FidelityError(code, `${label}: ${message}`, problems ? { problems: problems.map((p) => ({ ...p, message: `${label}: ${p.message}` })) } : {});
}

async function readBounded(file: string, max: number, label: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    // Read one byte past the limit: a file that grew after stat() is caught too.
    const buffer = Buffer.alloc(Math.min(max + 1, Math.max(0, (await handle.stat()).size) + 1));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) break;
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > max) refuse('DIFF_REPORT_TOO_LARGE', label, `report.json is larger than ${max} bytes; nothing was read`);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

const key = (id: unknown, attempt: unknown): string => `${String(id)}-${String(attempt)}`;

/** Two entries with the same key cannot be matched to the other side: refuse rather than pick one. */
function checkUnique(report: Report, label: string): void {
  const problems: Problem[] = [];
  const seen = (set: Set<string>, k: string, where: string): void => {
    if (set.has(k)) problems.push({ code: 'DIFF_REPORT_INVALID', message: `${where} repeats ${k}: entries are matched by it, so it must be unique`, where: { file: 'report.json', path: where } });
    set.add(k);
  };
  const runs = new Set<string>();
  report.runs.forEach((r, i) => seen(runs, `run ${key(r.run_id, r.run_attempt)}`, `runs[${i}]`));
  const comparisons = new Set<string>();
  report.comparisons.forEach((c, i) => {
    seen(comparisons, `comparison ${key(c.baseline_run_id, c.baseline_run_attempt)} vs ${key(c.candidate_run_id, c.candidate_run_attempt)}`, `comparisons[${i}]`);
    const slots = new Set<string>();
    c.pairs.forEach((p, j) => seen(slots, `slot ${p.slot_id}`, `comparisons[${i}].pairs[${j}]`));
  });
  if (problems.length) refuse('DIFF_REPORT_INVALID', label, problems[0]!.message, problems);
}

function parseReport(bytes: Buffer, label: string): { raw: Record<string, unknown>; report: Report } {
  if (hasBom(bytes)) refuse('DIFF_REPORT_INVALID', label, 'report.json starts with a byte order mark');
  const text = bytes.toString('utf8');
  const faults = scanJson(text);
  if (faults.length) {
    refuse('DIFF_REPORT_INVALID', label, faults[0]!.message, faults.map((f) => ({ code: 'DIFF_REPORT_INVALID', message: f.message, where: { file: 'report.json', ...('path' in f ? { path: f.path, line: f.line } : {}) } })));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    refuse('DIFF_REPORT_INVALID', label, `report.json is not JSON: ${(error as Error).message}`);
  }
  return validate(raw, label);
}

function validate(raw: unknown, label: string): { raw: Record<string, unknown>; report: Report } {
  const parsed = Report.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((i) => ({ code: 'DIFF_REPORT_INVALID', message: `report.json does not match schema_version 1: ${i.path.join('.')}: ${i.message}`, where: { file: 'report.json', path: i.path.join('.') } }));
    refuse('DIFF_REPORT_INVALID', label, problems[0]!.message, problems);
  }
  checkUnique(parsed.data, label);
  return { raw: raw as Record<string, unknown>, report: parsed.data };
}

/**
 * Reads one side: a bundle folder (seal checked first, refused with its BUNDLE_* codes when it does
 * not hold), a report.json file (read as it is), or a report value.
 */
export async function loadSide(input: string | Report, role: 'old' | 'new', maxBytes: number): Promise<LoadedSide> {
  if (typeof input !== 'string') {
    const label = `${role} (object)`;
    // A JSON round trip: the walk compares what a report.json of this value would hold, with the
    // same limits (nesting, duplicate keys) as a file.
    let text: string;
    try {
      text = JSON.stringify(input);
    } catch (error) {
      refuse('DIFF_REPORT_INVALID', label, `the report value cannot be written as JSON: ${(error as Error).message}`);
    }
    const faults = scanJson(text);
    if (faults.length) refuse('DIFF_REPORT_INVALID', label, faults[0]!.message);
    const { raw, report } = validate(JSON.parse(text) as unknown, label);
    return { raw, report, side: { input: '(object)', kind: 'object', sealed: false, files: null, report_sha256: null, generated_at: report.generated_at, tool_version: report.tool.version } };
  }
  const label = `${role} ${input}`;
  const st = await stat(input).catch(() => null);
  if (!st) refuse('DIFF_INPUT_NOT_FOUND', label, 'no such file or folder');
  if (st.isDirectory()) {
    const seal = await checkBundleSeal(input);
    if (seal.stopped || seal.problems.length) refuse(seal.problems[0]!.code, label, `the bundle's seal does not hold: ${seal.problems[0]!.message}`, seal.problems);
    const sealed = seal.sealed.get('report.json');
    if (sealed === undefined) refuse('BUNDLE_REPORT_MISSING', label, 'the bundle has no sealed report.json');
    const bytes = await readBounded(path.join(input, 'report.json'), maxBytes, label);
    const sha = createHash('sha256').update(bytes).digest('hex');
    // The bytes parsed are the ones the seal vouches for, even if the file changed after it was hashed.
    if (sha !== sealed) refuse('BUNDLE_FILE_CHANGED', label, `report.json changed while it was read: sealed ${sealed}, read ${sha}`);
    const { raw, report } = parseReport(bytes, label);
    return { raw, report, side: { input, kind: 'bundle', sealed: true, files: seal.files, report_sha256: sha, generated_at: report.generated_at, tool_version: report.tool.version } };
  }
  if (!st.isFile()) refuse('DIFF_INPUT_NOT_FOUND', label, 'neither a bundle folder nor a report.json file');
  if (st.size > maxBytes) refuse('DIFF_REPORT_TOO_LARGE', label, `report.json is ${st.size} bytes, more than the limit of ${maxBytes}; nothing was read`);
  const bytes = await readBounded(input, maxBytes, label);
  const { raw, report } = parseReport(bytes, label);
  const sha = createHash('sha256').update(bytes).digest('hex');
  return { raw, report, side: { input, kind: 'report', sealed: false, files: null, report_sha256: sha, generated_at: report.generated_at, tool_version: report.tool.version } };
}
