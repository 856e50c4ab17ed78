/**
 * merge(): the partials of every shard, plus the runs, into the bundle that
 * compare() writes on one machine, byte for byte (same SOURCE_DATE_EPOCH).
 * The runs are verified again and planned exactly as compare() plans them;
 * each partial must be sealed, of this tool version, of these runs, of one
 * decoder, one policy and one shard count, and together they must cover
 * every pair exactly once. Nothing is measured here: the report is built
 * from the partials' measurements and their per-pair files are copied
 * (re-hashed against their seal); the MP4s are copied from the runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkOut } from '../bundle/atomic.js';
import { claimOut } from '../bundle/out-guard.js';
import { writeDurable } from '../bundle/files.js';
import { isSafeRelativePath } from '../bundle/seal.js';
import type { CompareProgress, CompareResult } from '../compare.js';
import { assembleReport } from '../comparison/assemble.js';
import type { MeasuredPair } from '../comparison/measure.js';
import { planComparison, planSettingsOf, type ComparisonPlan } from '../comparison/plan.js';
import { comparisonDir, writeBundle } from '../comparison/write.js';
import { FidelityError, invalidParameter, type Problem } from '../errors.js';
import { createHash } from 'node:crypto';
import { describeMetrics } from '../metrics/names.js';
import { parsePolicy } from '../policy/load.js';
import type { Policy } from '../schemas/policy.js';
import { checkAlpha, DEFAULT_ALPHA, judgeNoise } from '../calibrate/apply.js';
import { parseCalibration } from '../calibrate/load.js';
import type { Calibration } from '../calibrate/schema.js';
import { resolveGeneratedAt } from '../time.js';
import { TOOL_VERSION } from '../version.js';
import { findPartials, readPartial, type LoadedPartial } from './read-partial.js';
import { shardIndices, slurmArrayExpression } from './spec.js';
import { partialRun } from './write-partial.js';

/** Options of merge(); the runs are positional, as for compare(). */
export interface MergeOptions {
  /** Partial folders, or folders holding partials in their subfolders (one per shard). */
  partials: readonly string[];
  /** The bundle folder; the same rules as compare()'s `out`. */
  out: string;
  force?: boolean;
  /** When given, every partial must have been measured with exactly this policy. */
  policy?: Policy;
  requireDigest?: boolean;
  /** Every run must prove its identity with a provenance file (docs/provenance.md). */
  requireProvider?: boolean;
  /** Judge the merged pairs against this noise sample too, as compare({ calibration }) does (docs/calibration.md). */
  calibration?: Calibration;
  /** Significance level of the noise verdicts (default 0.05). */
  alpha?: number;
  tempDir?: string;
  signal?: AbortSignal;
  /** The report's generated_at; default SOURCE_DATE_EPOCH when set, else now. */
  generatedAt?: Date;
  onProgress?: (event: CompareProgress) => void;
}

function names(partials: readonly LoadedPartial[]): string {
  return partials.map((p) => p.dir).join(', ');
}

/** Partials grouped by a key, in the order first seen. */
function groupBy(partials: readonly LoadedPartial[], key: (p: LoadedPartial) => string): Map<string, LoadedPartial[]> {
  const groups = new Map<string, LoadedPartial[]>();
  for (const p of partials) {
    const k = key(p);
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  return groups;
}

function describeGroups(groups: Map<string, LoadedPartial[]>, label: (p: LoadedPartial) => string): string {
  return [...groups.values()].map((g) => `${label(g[0]!)} in ${names(g)}`).join('; ');
}

function shortSha(sha: string): string {
  return `${sha.slice(0, 12)}…`;
}

/** Every consistency rule of docs/scale-out.md; problems name the partials. */
function consistencyProblems(plan: ComparisonPlan, partials: readonly LoadedPartial[], policy: Policy | undefined): Problem[] {
  const problems: Problem[] = [];
  const add = (code: string, message: string): void => {
    problems.push({ code, message });
  };

  for (const [version, group] of groupBy(partials, (p) => p.doc.tool.version)) {
    if (version !== TOOL_VERSION) {
      add('PARTIAL_TOOL_MISMATCH', `${names(group)} written by fidelity ${version}; this merge is fidelity ${TOOL_VERSION}: rerun those shards with ${TOOL_VERSION}`);
    }
  }

  const decoders = groupBy(partials, (p) => JSON.stringify(p.doc.decoder));
  if (decoders.size > 1) {
    add(
      'PARTIAL_DECODER_MISMATCH',
      `the partials were measured with different decoders: ${describeGroups(decoders, (p) => `ffmpeg ${p.doc.decoder.ffmpeg_version} (sha256 ${shortSha(p.doc.decoder.sha256)}, ffprobe sha256 ${shortSha(p.doc.decoder.ffprobe_sha256)}, ${p.doc.decoder.source})`)}; rerun every shard with one ffmpeg`,
    );
  }

  const expected = plan.runs.map((r, i) => partialRun(r, i === 0 ? 'baseline' : 'candidate'));
  const showRuns = (runs: typeof expected): string => runs.map((r) => `${r.run_id}-${r.run_attempt} (seal ${shortSha(r.seal_sha256)})`).join(', ');
  for (const p of partials) {
    if (JSON.stringify(p.doc.runs) !== JSON.stringify(expected)) {
      add('PARTIAL_FOREIGN_RUNS', `${p.dir} was measured on runs ${showRuns(p.doc.runs)}, not on the runs given here, ${showRuns(expected)} (same runs, same order, same attempts and seals)`);
    }
  }

  if (policy !== undefined) {
    const want = JSON.stringify(policy);
    const other = partials.filter((p) => JSON.stringify(p.doc.policy) !== want);
    if (other.length) add('PARTIAL_POLICY_MISMATCH', `${names(other)} measured with another policy than the one given to merge (${policy.name})`);
  } else {
    const policies = groupBy(partials, (p) => JSON.stringify(p.doc.policy));
    if (policies.size > 1) add('PARTIAL_POLICY_MISMATCH', `the partials were judged with different policies: ${describeGroups(policies, (p) => `policy "${p.doc.policy.name}"`)}`);
  }

  const sets = groupBy(partials, (p) => JSON.stringify(p.doc.metrics));
  if (sets.size > 1) {
    add('PARTIAL_METRICS_MISMATCH', `the partials were measured with different metric sets: ${describeGroups(sets, (p) => `--metrics ${describeMetrics(p.doc.metrics)}`)}; rerun every shard with one set`);
  }

  const counts = groupBy(partials, (p) => String(p.doc.shard.count));
  if (counts.size > 1) add('PARTIAL_SHARD_COUNT_MISMATCH', `the partials split the pairs into different shard counts: ${describeGroups(counts, (p) => `N = ${p.doc.shard.count}`)}`);

  // Each partial must hold exactly the pairs its K/N names, matching this plan, with sealed files where the bundle puts them.
  const total = plan.pairs.length;
  for (const p of partials) {
    const { index: k, count: n } = p.doc.shard;
    const wrong = (why: string): void => add('PARTIAL_PAIRS_MISMATCH', `${p.dir} (shard ${k}/${n}): ${why}`);
    if (k >= n) {
      wrong(`shard index ${k} is not below the count ${n}`);
      continue;
    }
    if (p.doc.pairs_total !== total) {
      wrong(`it numbers ${p.doc.pairs_total} pairs; these runs have ${total}`);
      continue;
    }
    const want = shardIndices(total, { index: k, count: n });
    const got = p.doc.pairs.map((x) => x.index);
    if (JSON.stringify(p.doc.pair_indices) !== JSON.stringify(want) || JSON.stringify(got) !== JSON.stringify(want)) {
      wrong(`it holds pairs [${got.join(', ')}]; shard ${k}/${n} of ${total} pairs is [${want.join(', ')}]`);
      continue;
    }
    for (const pair of p.doc.pairs) {
      const ref = plan.pairs[pair.index]!;
      if (pair.pair !== ref.id) wrong(`pair ${pair.index} is ${pair.pair}; in these runs it is ${ref.id}`);
      else if ((pair.outcome === null) === ref.measurable) wrong(`pair ${pair.index} (${ref.id}) ${ref.measurable ? 'has no measurement' : 'has a measurement though pairing refused it'}`);
      const prefix = `${comparisonDir(ref.candidate)}/${ref.pair.slot_id}/`;
      for (const file of Object.values(pair.files)) {
        if (!isSafeRelativePath(file) || !file.startsWith(prefix) || !p.sealed.has(file)) wrong(`pair ${pair.index} names the file ${JSON.stringify(file)}, which is not a sealed file under ${prefix}`);
      }
    }
  }
  return problems;
}

/** Which shard indices are given twice or missing, and which pairs two partials both hold. */
function coverageProblems(partials: readonly LoadedPartial[], count: number | null): Problem[] {
  const problems: Problem[] = [];
  const twice = new Set<string>();
  if (count !== null) {
    for (const [k, group] of groupBy(partials, (p) => String(p.doc.shard.index))) {
      if (group.length > 1) {
        problems.push({ code: 'SHARD_DUPLICATE', message: `shard ${k}/${count} is given ${group.length} times: ${names(group)}; keep one` });
        for (const a of group) for (const b of group) twice.add(`${a.dir}\0${b.dir}`);
      }
    }
  }
  const holder = new Map<number, LoadedPartial>();
  const overlaps = new Map<string, { a: LoadedPartial; b: LoadedPartial; pairs: number[] }>();
  for (const p of partials) {
    for (const pair of p.doc.pairs) {
      const first = holder.get(pair.index);
      if (!first) {
        holder.set(pair.index, p);
        continue;
      }
      if (twice.has(`${first.dir}\0${p.dir}`)) continue;
      const key = `${first.dir}\0${p.dir}`;
      const entry = overlaps.get(key) ?? { a: first, b: p, pairs: [] };
      entry.pairs.push(pair.index);
      overlaps.set(key, entry);
    }
  }
  for (const { a, b, pairs } of overlaps.values()) {
    problems.push({ code: 'PARTIAL_PAIR_DUPLICATE', message: `${a.dir} and ${b.dir} both hold pair(s) ${pairs.join(', ')}; each pair must come from one shard` });
  }
  if (count !== null) {
    const present = new Set(partials.map((p) => p.doc.shard.index));
    const missing = [...Array(count).keys()].filter((k) => !present.has(k));
    if (missing.length) {
      const array = slurmArrayExpression(missing);
      problems.push({
        code: 'SHARD_MISSING',
        message: `${missing.length} of ${count} shards missing: ${missing.join(', ')}; rerun only those (Slurm: sbatch --array=${array} with --shards ${count}, or --shard K/${count} each) and merge again`,
      });
    }
  }
  return problems;
}

function refuse(problems: Problem[], what: string): never {
  throw new FidelityError(problems[0]!.code, `${problems.length} problem(s) with the partials; ${what}: ${problems[0]!.message}`, { problems });
}

/**
 * Turns the partials that `compare(..., { shard })` wrote for every shard
 * into the bundle `compare()` would write on one machine for the same runs:
 * byte for byte with the same SOURCE_DATE_EPOCH, for every shard count.
 * Verifies the runs again; refuses (exit 2 codes in docs/reason-codes.md)
 * unsealed, foreign, mixed or duplicate partials and missing shards, naming
 * the partials, before `out` is touched.
 *
 * @example
 * await merge('runs/h200', ['runs/b200'], { partials: ['partials'], out: 'bundle' });
 */
export async function merge(baseline: string, candidates: readonly string[], options: MergeOptions): Promise<CompareResult> {
  if (typeof baseline !== 'string' || baseline.length === 0) throw invalidParameter('baseline', 'a run path', baseline);
  if (!Array.isArray(candidates) || candidates.length === 0) throw invalidParameter('candidates', 'at least one candidate run path', candidates);
  if (!options || typeof options.out !== 'string' || options.out.length === 0) throw invalidParameter('options.out', 'a folder path', options?.out);
  if (!Array.isArray(options.partials) || options.partials.length === 0 || options.partials.some((p) => typeof p !== 'string' || p === '')) {
    throw invalidParameter('options.partials', 'at least one partial folder', options.partials);
  }
  const policy = options.policy ? parsePolicy(options.policy, 'options.policy') : undefined;
  const generatedAt = resolveGeneratedAt(options.generatedAt);
  const inputs = [baseline, ...candidates];
  // A partial is an input too: --out may neither write into one nor replace one (real paths), and one writer at a time.
  const claim = await claimOut(options.out, [...inputs, ...options.partials], Boolean(options.force), checkOut);
  try {
    return await mergeClaimed(baseline, candidates, options, policy, generatedAt);
  } finally {
    await claim.release();
  }
}

async function mergeClaimed(baseline: string, candidates: readonly string[], options: MergeOptions, policy: Policy | undefined, generatedAt: Date): Promise<CompareResult> {
  const found: string[] = [];
  const problems: Problem[] = [];
  for (const given of options.partials) {
    const r = await findPartials(given);
    problems.push(...r.problems);
    for (const d of r.dirs) if (!found.some((f) => path.resolve(f) === path.resolve(d))) found.push(d);
  }
  const partials: LoadedPartial[] = [];
  for (const [i, dir] of found.entries()) {
    options.onProgress?.({ stage: 'merge', step: 'partials', done: i, total: found.length });
    const r = await readPartial(dir);
    problems.push(...r.problems);
    if (r.partial) partials.push(r.partial);
  }
  options.onProgress?.({ stage: 'merge', step: 'partials', done: found.length, total: found.length });
  if (problems.length) refuse(problems, 'nothing was merged');

  const plan = await planComparison(baseline, candidates, planSettingsOf(options));
  try {
    const counts = new Set(partials.map((p) => p.doc.shard.count));
    const all = [...consistencyProblems(plan, partials, policy), ...coverageProblems(partials, counts.size === 1 ? [...counts][0]! : null)];
    if (all.length) refuse(all, 'nothing was merged');

    const first = partials[0]!.doc;
    const measured: MeasuredPair[] = partials.flatMap((p) => p.doc.pairs.map((x) => ({ index: x.index, pair: x.pair, outcome: x.outcome }))).sort((a, b) => a.index - b.index);
    const assembled = assembleReport(plan, measured, { policy: first.policy, metrics: first.metrics, decoder: first.decoder, generatedAt });
    const noise = options.calibration
      ? judgeNoise(parseCalibration(options.calibration, 'options.calibration'), checkAlpha(options.alpha ?? DEFAULT_ALPHA), { decoderSha256: first.decoder.sha256, baseline: plan.baseline })
      : null;
    const report = noise ? noise.apply(assembled) : assembled;

    const byPrefix = new Map<string, { partial: LoadedPartial; files: Record<string, string> }>();
    for (const p of partials) {
      for (const x of p.doc.pairs) {
        const ref = plan.pairs[x.index]!;
        byPrefix.set(`${comparisonDir(ref.candidate)}/${ref.pair.slot_id}`, { partial: p, files: x.files });
      }
    }
    return await writeBundle(options.out, plan, report, {
      force: Boolean(options.force),
      ...(noise ? { files: [noise.file] } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (e) => options.onProgress?.({ stage: 'bundle', ...e }),
      pairFiles: async (_pair, prefix, dir) => {
        const entry = byPrefix.get(prefix);
        if (!entry) throw new FidelityError('INTERNAL', `no partial holds ${prefix}`);
        // A set: the two worst-frame keys of a bit-identical pair name one file.
        for (const rel of new Set(Object.values(entry.files))) {
          // Re-hashed on the way: a partial changed since its seal was checked is refused, not copied.
          const bytes = await readFile(path.join(entry.partial.dir, ...rel.split('/')));
          if (createHash('sha256').update(bytes).digest('hex') !== entry.partial.sealed.get(rel)) {
            throw new FidelityError('PARTIAL_SEAL', `partial ${entry.partial.dir}: ${rel} changed while it was merged`);
          }
          await writeDurable(path.join(dir, ...rel.split('/')), bytes);
        }
        return { ...entry.files };
      },
    });
  } finally {
    await plan.close();
  }
}
