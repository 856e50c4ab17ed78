/**
 * merge(): the partials of every shard, plus the runs, into the bundle that
 * compare() writes on one machine. The runs are verified again and planned
 * exactly as compare() plans them; each partial must be sealed, of this tool
 * version, of these runs, of merge's own decoder and policy (the one given,
 * or the default) and of one shard count, and together they must cover every
 * pair exactly once.
 *
 * A partial is evidence from another machine, checked and never obeyed
 * (docs/scale-out.md, "Trust"): every measurement must agree with itself
 * (ranges, per-frame lengths, aggregates), with its frames.csv and with
 * merge's own probe of the media; the pair files must be the ones compare
 * writes, of the kinds their names say; and `remeasure` pairs of each
 * partial (one by default, chosen at random now) are measured again and
 * must be identical. The report is then built from merge's own outcome of
 * each re-measured pair and the partials' outcomes of the others (their
 * values checked as above; a failure's message carried as the shard wrote
 * it), their per-pair files are copied (re-hashed against their seal) and
 * the MP4s are copied from the runs. With `remeasure: 'all'` the
 * bundle is byte for byte the one compare() writes (same SOURCE_DATE_EPOCH);
 * otherwise it differs only in how many pairs it says merge re-measured.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkOut } from '../output/atomic.js';
import { bundleFileKind, fileKindProblem, pairFilesProblem } from '../bundle/file-kinds.js';
import { pairFramesCsv } from '../bundle/frames-csv.js';
import { claimOut } from '../output/out-guard.js';
import { writeDurable } from '../output/files.js';
import { isSafeRelativePath } from '../output/seal.js';
import { assembleReport, decoderIdentity } from '../comparison/assemble.js';
import { withContainerReaders } from '../comparison/container-readers.js';
import type { CompareProgress, CompareResult, DecoderIdentity } from '../comparison/types.js';
import { analyseClipsAlone, homeClips, measureOwnRepetitions, measurePairs, measureSettingsOf, mediaSpecOf, pairAnalysedShas, sealedMedia, type ClipCandidate, type MeasuredPair } from '../comparison/measure.js';
import { ClipAnalysis, type AnalysedClip } from '../schemas/clip.js';
import { planComparison, planSettingsOf, type ComparisonPlan, type PairRef } from '../comparison/plan.js';
import { writeBundle } from '../comparison/write.js';
import { comparisonDir } from '../bundle/layout.js';
import { FidelityError, invalidParameter, type Problem } from '../errors.js';
import { createHash } from 'node:crypto';
import { resolveFfmpeg, type ResolveOptions } from '../media/ffmpeg.js';
import { describeMetrics, resolveMetrics } from '../metrics/names.js';
import { DEFAULT_POLICY } from '../policy/default.js';
import { parsePolicy } from '../policy/load.js';
import { examplePolicyFor } from '../policy/metric-set.js';
import { probePair, type PairFacts } from '../pool/probe-pair.js';
import { defaultThreadCount } from '../pool/threads.js';
import type { Policy } from '../schemas/policy.js';
import { checkAlpha, DEFAULT_ALPHA, judgeNoise } from '../calibrate/apply.js';
import { parseCalibration } from '../calibrate/load.js';
import type { Calibration } from '../calibrate/schema.js';
import { resolveGeneratedAt } from '../time.js';
import { TOOL_VERSION } from '../version.js';
import { clipJudgementProblem, clipProblems, factProblems, failureProblem, measurementProblems } from './check-measurement.js';
import { clipExpectationsOf } from '../metrics/clip-checks.js';
import { logsCorruptFrames } from '../media/decoder-log.js';
import { analysisOf, clipAnalysisProblems, firstDifference } from './check-clips.js';
import { findPartials, readPartial, type LoadedPartial } from './read-partial.js';
import { checkRemeasure, chooseAtRandom, outcomeDifference, sampleAtRandom, type RemeasureSpec } from './remeasure.js';
import { shardIndices, slurmArrayExpression } from './spec.js';
import { partialRun } from './write-partial.js';
import { PARTIAL_FILE, PARTIAL_SCHEMA_FILE } from './schema.js';
import { checkTempDirs } from '../temp.js';
import { checkBounded } from '../bounds.js';
import { byCount, counted } from '../words.js';

/** Options of merge(); the runs are positional, as for compare(). */
export interface MergeOptions {
  /** Partial folders, or folders holding partials in their subfolders (one per shard). */
  partials: readonly string[];
  /** The bundle folder; the same rules as compare()'s `out`. */
  out: string;
  /** Replace a non-empty `out` that is not a bundle (the rules of compare()'s `out`). */
  force?: boolean;
  /** When given, every partial must have been judged with exactly this policy; otherwise with the example policy of its metric set (the default). */
  policy?: Policy;
  /**
   * Pairs of each partial merge measures again and requires identical: a
   * whole number (default 1), or 'all'. Chosen at random when merge runs.
   */
  remeasure?: RemeasureSpec;
  /** Cores for re-measuring and probing (default: every available one). */
  threads?: number;
  /** The ffmpeg/ffprobe merge probes and re-measures with; the partials must have been measured with the same binaries. */
  ffmpeg?: ResolveOptions;
  /**
   * Wall-clock limit of each ffmpeg/ffprobe child, in milliseconds, for everything merge probes and
   * measures. Absent: each partial's pairs and clips are probed and re-measured with the limit that
   * shard ran with (partial.json `decode_timeout_ms`), and the baseline's own repetitions with the
   * partials' limit when they all have one.
   */
  timeoutMs?: number;
  /** Make a missing artifact digest an error for every run. */
  requireDigest?: boolean;
  /** Every run must prove its identity with a provenance file (docs/provenance.md). */
  requireProvider?: boolean;
  /** Judge the merged pairs against this noise sample too, as compare({ calibration }) does (docs/calibration.md). */
  calibration?: Calibration;
  /** Significance level of the noise verdicts (default 0.05). */
  alpha?: number;
  /**
   * Measure the baseline run's own repetitions as compare({ repeatability }) does: merge measures
   * them itself from the runs (a shard never does), so the bundle is the one compare writes.
   */
  repeatability?: boolean;
  /** Where zip / tar.gz runs are unpacked while they are read (default the OS temp folder). */
  tempDir?: string;
  /** Cancels: the ffmpeg children are killed, `out` is left as it was, and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** The report's generated_at; default SOURCE_DATE_EPOCH when set, else now. */
  generatedAt?: Date;
  /** Told each step as it happens, as compare()'s `onProgress` is. */
  onProgress?: (event: CompareProgress) => void;
}

/** The limit merge probes and re-measures `p`'s pairs and clips with: merge's own when given, else the shard's (undefined: the default). */
function limitFor(p: LoadedPartial, options: Pick<MergeOptions, 'timeoutMs'>): number | undefined {
  return options.timeoutMs ?? p.doc.decode_timeout_ms ?? undefined;
}

/** `options` with the child limit `limit` (none: the default). */
function withLimit(options: MergeOptions, limit: number | undefined): MergeOptions {
  const { timeoutMs: _dropped, ...rest } = options;
  return limit === undefined ? rest : { ...rest, timeoutMs: limit };
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

/** What identifies the binaries of a decoder: their versions and SHA-256s, not where they were found. */
function binaries(d: DecoderIdentity): string {
  return JSON.stringify([d.ffmpeg_version, d.sha256, d.ffprobe_version, d.ffprobe_sha256]);
}

/** Every consistency rule of docs/scale-out.md; problems name the partials. */
function consistencyProblems(plan: ComparisonPlan, partials: readonly LoadedPartial[], policy: Policy | undefined, decoder: DecoderIdentity): Problem[] {
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
  const describe = (d: DecoderIdentity): string => `ffmpeg ${d.ffmpeg_version} (sha256 ${shortSha(d.sha256)}, ffprobe sha256 ${shortSha(d.ffprobe_sha256)}, ${d.source})`;
  if (decoders.size > 1) {
    add('PARTIAL_DECODER_MISMATCH', `the partials were measured with different decoders: ${describeGroups(decoders, (p) => describe(p.doc.decoder))}; rerun every shard with one ffmpeg`);
  } else if (decoders.size === 1 && binaries(partials[0]!.doc.decoder) !== binaries(decoder)) {
    // merge probes and re-measures with its own ffmpeg: a decoder identity it did not resolve itself is a claim, not a fact.
    // The binaries must be the same (versions and SHA-256s); where each machine found them (`source`) may differ.
    add(
      'PARTIAL_DECODER_MISMATCH',
      `the partials say they were measured with ${describe(partials[0]!.doc.decoder)}; this merge resolves ${describe(decoder)}: merge with the shards' ffmpeg (FIDELITY_FFMPEG and FIDELITY_FFPROBE, or the same image), or rerun the shards with this one`,
    );
  }

  const expected = plan.runs.map((r, i) => partialRun(r, i === 0 ? 'baseline' : 'candidate'));
  const showRuns = (runs: typeof expected): string => runs.map((r) => `${r.run_id}-${r.run_attempt} (seal ${shortSha(r.seal_sha256)})`).join(', ');
  for (const p of partials) {
    if (JSON.stringify(p.doc.runs) !== JSON.stringify(expected)) {
      add('PARTIAL_FOREIGN_RUNS', `${p.dir} was measured on runs ${showRuns(p.doc.runs)}, not on the runs given here, ${showRuns(expected)} (same runs, same order, same attempts and seals)`);
    }
  }

  const sets = groupBy(partials, (p) => JSON.stringify(p.doc.metrics));
  if (sets.size > 1) {
    add('PARTIAL_METRICS_MISMATCH', `the partials were measured with different metric sets: ${describeGroups(sets, (p) => `--metrics ${describeMetrics(p.doc.metrics)}`)}; rerun every shard with one set`);
  }
  for (const p of partials) {
    if (JSON.stringify(resolveMetrics(p.doc.metrics.list)) !== JSON.stringify(p.doc.metrics)) add('PARTIAL_METRICS_MISMATCH', `${p.dir} names the metric set ${JSON.stringify(p.doc.metrics.set)}, which is not its list ${p.doc.metrics.list.join(',')}`);
  }

  // The policy is merge's to choose, not the shards': the one merge is given, or the example policy of the metric set.
  if (policy !== undefined) {
    const want = JSON.stringify(policy);
    const other = partials.filter((p) => JSON.stringify(p.doc.policy) !== want);
    if (other.length) add('PARTIAL_POLICY_MISMATCH', `${names(other)} measured with another policy than the one given to merge (${policy.name})`);
  } else {
    const other = partials.filter((p) => JSON.stringify(p.doc.policy) !== JSON.stringify(examplePolicyFor(DEFAULT_POLICY, p.doc.metrics)));
    if (other.length) {
      add(
        'PARTIAL_POLICY_MISMATCH',
        `${names(other)} judged with policy "${other[0]!.doc.policy.name}", which is not the default example policy merge judges with when no --policy is given: give merge the shards' --policy file, or rerun them without one`,
      );
    }
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
      wrong(`it numbers ${counted(p.doc.pairs_total, 'pair')}; these runs have ${total}`);
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
      // Only the files compare writes for such a pair: none without a measurement, frames.csv with one, each asset by its own name.
      const files = Object.keys(pair.files);
      const measured = pair.outcome?.ok === true;
      if (!measured && files.length > 0) wrong(`pair ${pair.index} (${ref.id}) has files, though it has no measurement`);
      if (measured && !pair.files.frames_csv) wrong(`pair ${pair.index} (${ref.id}) has a measurement but no frames.csv`);
      const why = pairFilesProblem(pair.files, prefix.slice(0, -1));
      if (why) wrong(`pair ${pair.index} (${ref.id}) ${why}`);
    }
    // Nothing else in a partial: its two JSON files and its pairs' files.
    const named = new Set([PARTIAL_FILE, PARTIAL_SCHEMA_FILE, ...p.doc.pairs.flatMap((x) => Object.values(x.files))]);
    for (const file of p.sealed.keys()) if (!named.has(file)) wrong(`${file} is sealed but is neither partial.json, its schema, nor a file of one of its pairs`);
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
    problems.push({ code: 'PARTIAL_PAIR_DUPLICATE', message: `${a.dir} and ${b.dir} both hold ${byCount(pairs.length, 'pair', 'pairs')} ${pairs.join(', ')}; each pair must come from one shard` });
  }
  if (count !== null) {
    const present = new Set(partials.map((p) => p.doc.shard.index));
    const missing = [...Array(count).keys()].filter((k) => !present.has(k));
    if (missing.length) {
      const array = slurmArrayExpression(missing);
      problems.push({
        code: 'SHARD_MISSING',
        message: `${missing.length} of ${counted(count, 'shard')} missing: ${missing.join(', ')}; rerun only those (Slurm: sbatch --array=${array} with --shards ${count}, or --shard K/${count} each) and merge again`,
      });
    }
  }
  return problems;
}

/** `partial K/N (dir): pair j (id)`: how a problem names where it was found. */
function where(p: LoadedPartial, index: number, id: string): string {
  return `${p.dir} (shard ${p.doc.shard.index}/${p.doc.shard.count}): pair ${index} (${id})`;
}

/**
 * What merge checks in each pair without the media: the measurement agrees
 * with itself and its metric set, its clip analyses with themselves, merge's
 * build and the pair, and each sealed file's analysis with the same bytes'
 * analysis in every other pair (PARTIAL_MEASUREMENT_INVALID), frames.csv
 * is the one compare would write from it (PARTIAL_MEASUREMENT_INVALID), and
 * every file's bytes are the kind its name says (PARTIAL_PAIRS_MISMATCH).
 */
async function evidenceProblems(plan: ComparisonPlan, partials: readonly LoadedPartial[], decoder: DecoderIdentity): Promise<Problem[]> {
  const problems: Problem[] = [];
  const expectations = clipExpectationsOf(plan.baseline.plan);
  // The partials' decoder is merge's own (checked before): a count is null exactly where that build cannot report it.
  const build = { countsCorrupt: logsCorruptFrames(decoder.ffmpeg_version) };
  // The first analysis seen of each sealed file, and where: every other pair using those bytes must carry the same.
  const firstOf = new Map<string, { where: string; analysis: unknown }>();
  for (const p of partials) {
    for (const pair of p.doc.pairs) {
      const ref = plan.pairs[pair.index]!;
      const at = where(p, pair.index, ref.id);
      const invalid = (message: string): void => void problems.push({ code: 'PARTIAL_MEASUREMENT_INVALID', message: `${at}: ${message}` });
      const outcome = pair.outcome;
      if (outcome && !outcome.ok) {
        const why = failureProblem(outcome);
        if (why) invalid(why);
      }
      if (outcome?.ok) for (const why of measurementProblems(outcome.measurement, p.doc.metrics)) invalid(why);
      if (outcome?.ok) for (const why of clipProblems(outcome.measurement, expectations, build)) invalid(why);
      const clips = outcome?.ok ? outcome.measurement.clips : undefined;
      const sealed = { baseline: ref.pair.baseline.media?.sha256, candidate: ref.pair.candidate.media?.sha256 };
      for (const side of ['baseline', 'candidate'] as const) {
        const sha = sealed[side];
        if (!clips || !sha) continue;
        const analysis = analysisOf(clips[side]);
        const first = firstOf.get(sha);
        if (!first) firstOf.set(sha, { where: `${at} clips.${side}`, analysis });
        else {
          const field = firstDifference(first.analysis, analysis);
          if (field !== null) invalid(`clips.${side}.${field} differs from the analysis of the same sealed bytes (sha256 ${shortSha(sha)}) in ${first.where}`);
        }
      }
      for (const [key, file] of Object.entries(pair.files)) {
        const bytes = await readFile(path.join(p.dir, ...file.split('/')));
        const kind = bundleFileKind(file);
        const why = kind === null ? 'is not a file compare writes' : fileKindProblem(kind, bytes);
        if (why) problems.push({ code: 'PARTIAL_PAIRS_MISMATCH', message: `${at}: ${file} ${why}` });
        if (key === 'frames_csv' && outcome?.ok && bytes.toString('utf8') !== pairFramesCsv(outcome.measurement.video)) {
          invalid(`${file} does not match partial.json: it is not the frames.csv of the pair's measurement`);
        }
      }
    }
  }
  return problems;
}

/**
 * The clips a partial analysed on their own (partial.json `clips`, docs/scale-out.md): exactly the
 * ones whose home is among its pairs and that none of its pairs analysed, each once, by SHA-256
 * ascending (PARTIAL_PAIRS_MISMATCH otherwise), and each analysis's judgement what its own figures
 * give under the plan (PARTIAL_MEASUREMENT_INVALID).
 */
function unpairedClipProblems(plan: ComparisonPlan, p: LoadedPartial, decoder: DecoderIdentity): Problem[] {
  const problems: Problem[] = [];
  const at = `${p.dir} (shard ${p.doc.shard.index}/${p.doc.shard.count})`;
  const refs = p.doc.pairs.map((x) => plan.pairs[x.index]!);
  const byPairs = pairAnalysedShas(plan, p.doc.pairs);
  const want = [...new Set(homeClips(plan, refs).map((c) => c.sha256))].filter((sha) => !byPairs.has(sha)).sort();
  const got = p.doc.clips.map((c) => c.sha256);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    const missing = want.filter((sha) => !got.includes(sha));
    const extra = got.filter((sha) => !want.includes(sha));
    const say = (list: string[]): string => list.map(shortSha).join(', ') || 'none';
    problems.push({
      code: 'PARTIAL_PAIRS_MISMATCH',
      message: `${at}: its clips analysed on their own are not the ones its pairs leave (in SHA-256 order, each once): missing ${say(missing)}; not its own ${say(extra)}`,
    });
  }
  const expectations = clipExpectationsOf(plan.baseline.plan);
  // No pair to hold these clips to (pairAudio undefined), but each must agree with itself and merge's build, as a pair's clips must.
  const context = { countsCorrupt: logsCorruptFrames(decoder.ffmpeg_version), pairAudio: undefined };
  for (const c of p.doc.clips) {
    if (!c.outcome.ok) continue;
    const named = `the clip ${shortSha(c.sha256)} analysed on its own`;
    for (const why of clipAnalysisProblems('clip', c.outcome.clip, context)) problems.push({ code: 'PARTIAL_MEASUREMENT_INVALID', message: `${at}: ${named}: ${why}` });
    const why = clipJudgementProblem(c.outcome.clip, expectations, mediaSpecOf(plan.baseline.plan));
    if (why) problems.push({ code: 'PARTIAL_MEASUREMENT_INVALID', message: `${at}: ${named} ${why}` });
  }
  return problems;
}

/** Runs `work` over `items`, at most `limit` at a time, in order of the results. */
async function limited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/**
 * merge's own probe of every measured pair's media, as measuring probes it
 * before its first frame: each shard's outcome must agree with it
 * (PARTIAL_MEASUREMENT_MISMATCH): a pair the probe finds incomparable must
 * carry that failure, a comparable one the probe's frame count, size and
 * audio layout.
 */
async function mediaFactProblems(plan: ComparisonPlan, partials: readonly LoadedPartial[], options: MergeOptions): Promise<Problem[]> {
  const jobs: { p: LoadedPartial; ref: PairRef; outcome: NonNullable<LoadedPartial['doc']['pairs'][number]['outcome']> }[] = [];
  for (const p of partials) {
    for (const pair of p.doc.pairs) if (pair.outcome) jobs.push({ p, ref: plan.pairs[pair.index]!, outcome: pair.outcome });
  }
  let done = 0;
  options.onProgress?.({ stage: 'merge', step: 'media', done, total: jobs.length });
  const found = await limited(jobs, options.threads ?? defaultThreadCount(), async (job): Promise<Problem[]> => {
    const slot = job.ref.pair.slot_id;
    const sealed = sealedMedia(job.ref.pair.baseline.media, job.ref.pair.candidate.media).sha256;
    // With the shard's own limit: a DECODE_TIMEOUT it found under that limit is what merge's probe must find.
    const limit = limitFor(job.p, options);
    const facts: PairFacts = await probePair(
      await plan.baseline.mediaPath(slot),
      await job.ref.candidate.mediaPath(slot),
      {
        // The plan's media spec too, as measuring checks it: a partial cannot measure media that break the plan.
        plan: { video: plan.baseline.plan.video, audio: plan.baseline.plan.audio },
        ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
        ...(limit !== undefined ? { timeoutMs: limit } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      // One probe per file: a baseline clip paired with several candidates, or two files of the same bytes, is probed once.
      sealed,
    );
    options.onProgress?.({ stage: 'merge', step: 'media', done: ++done, total: jobs.length });
    return factProblems(job.outcome, facts).map((message) => ({ code: 'PARTIAL_MEASUREMENT_MISMATCH', message: `${where(job.p, job.ref.index, job.ref.id)}: ${message}` }));
  });
  return found.flat();
}

/** Where a partial's analysis of a clip differs from merge's own (the failure's code only, as for pairs); null when the same. */
function clipDifference(partial: AnalysedClip, merged: AnalysedClip): string | null {
  // Through the schema, so both are in its key order (the partial's was read through it, merge's is as the accumulators built it).
  const say = (c: AnalysedClip): string => (c.outcome.ok ? JSON.stringify(ClipAnalysis.parse(c.outcome.clip)) : `failure ${c.outcome.failure.code}`);
  return say(partial) === say(merged) ? null : `the partial has ${say(partial)}; merge found ${say(merged)}`;
}

/** What merge measured again: how many pairs, the problems, its own outcome of each re-measured pair and its own analysis of each re-derived clip. */
interface Remeasured {
  count: number;
  problems: Problem[];
  outcomes: Map<number, MeasuredPair['outcome']>;
  /** By SHA-256: the clips analysed on their own that merge analysed again. */
  clips: Map<string, AnalysedClip>;
}

/**
 * Measures `remeasure` pairs of each partial again (chosen at random now)
 * and compares: any difference is PARTIAL_MEASUREMENT_MISMATCH naming the
 * shard and the pair. Then the partials' clips analysed on their own: those
 * merge analysed again beside the re-measured pairs, and `remeasure` more of
 * each partial's (every one with 'all'), chosen at random now, must be what
 * merge's own analysis gives (PARTIAL_MEASUREMENT_MISMATCH). Each partial's
 * pairs and clips are measured with the limit its shard ran with, or merge's
 * own when given. Returns how many pairs were measured again, and merge's own
 * outcome of each pair and clip: the report takes those, not the partial's (a
 * failure's message is not compared, so only merge's own text is merge's word).
 */
async function remeasured(plan: ComparisonPlan, partials: readonly LoadedPartial[], remeasure: RemeasureSpec, options: MergeOptions): Promise<Remeasured> {
  const result: Remeasured = { count: 0, problems: [], outcomes: new Map(), clips: new Map() };
  const byLimit = groupBy(partials, (p) => String(limitFor(p, options) ?? 'default'));
  for (const group of byLimit.values()) {
    const settings = measureSettingsOf(withLimit(options, limitFor(group[0]!, options)), group[0]!.doc.metrics.list, (e) => options.onProgress?.({ stage: 'measure', ...e }));
    await remeasureGroup(plan, group, remeasure, settings, result);
  }
  return result;
}

/** {@link remeasured} for partials of one limit, adding to `result`. */
async function remeasureGroup(
  plan: ComparisonPlan,
  group: readonly LoadedPartial[],
  remeasure: RemeasureSpec,
  settings: ReturnType<typeof measureSettingsOf>,
  result: Remeasured,
): Promise<void> {
  const chosen = new Map<number, LoadedPartial>();
  for (const p of group) {
    const refs = p.doc.pairs.filter((x) => x.outcome !== null).map((x) => plan.pairs[x.index]!);
    for (const ref of chooseAtRandom(refs, remeasure)) chosen.set(ref.index, p);
  }
  const again = chosen.size === 0 ? { pairs: [], clips: [] } : await measurePairs(plan, [...chosen.keys()].map((j) => plan.pairs[j]!), settings);
  for (const m of again.pairs) {
    const p = chosen.get(m.index)!;
    const given = p.doc.pairs.find((x) => x.index === m.index)!.outcome!;
    const diff = outcomeDifference(given, m.outcome!);
    if (diff) result.problems.push({ code: 'PARTIAL_MEASUREMENT_MISMATCH', message: `${where(p, m.index, m.pair)} re-measured by merge differs: ${diff}` });
    result.outcomes.set(m.index, m.outcome);
  }
  result.count += chosen.size;
  // The clips analysed on their own that the re-measured pairs left (their homes), then a sample of
  // each partial's others, every one with 'all': pairs refused before measuring leave clips too.
  const mine = new Map(again.clips.map((c) => [c.sha256, c] as const));
  const more = new Map<string, ClipCandidate>();
  for (const p of group) {
    const left = p.doc.clips.filter((c) => !mine.has(c.sha256));
    const files = new Map(homeClips(plan, p.doc.pairs.map((x) => plan.pairs[x.index]!)).map((c) => [c.sha256, c] as const));
    for (const c of sampleAtRandom(left, remeasure)) {
      const file = files.get(c.sha256);
      if (file && !more.has(c.sha256)) more.set(c.sha256, file);
    }
  }
  for (const c of await analyseClipsAlone(plan, [...more.values()], settings)) mine.set(c.sha256, c);
  for (const p of group) {
    for (const theirs of p.doc.clips) {
      const merged = mine.get(theirs.sha256);
      if (!merged) continue;
      const diff = clipDifference(theirs, merged);
      if (diff) result.problems.push({ code: 'PARTIAL_MEASUREMENT_MISMATCH', message: `${p.dir} (shard ${p.doc.shard.index}/${p.doc.shard.count}): the clip ${shortSha(theirs.sha256)} analysed again by merge differs: ${diff}` });
      result.clips.set(theirs.sha256, merged);
    }
  }
}

/** The limit of the baseline's own repetitions: merge's own when given, else the partials' when they all have one. */
function repetitionLimit(partials: readonly LoadedPartial[], options: MergeOptions): number | undefined {
  const limits = new Set(partials.map((p) => limitFor(p, options)));
  return limits.size === 1 ? [...limits][0] : options.timeoutMs;
}

function refuse(problems: Problem[], what: string): never {
  throw new FidelityError(problems[0]!.code, `${problems.length} problem(s) with the partials; ${what}: ${problems[0]!.message}`, { problems });
}

/**
 * Turns the partials that `compare(..., { shard })` wrote for every shard
 * into the bundle `compare()` would write on one machine for the same runs,
 * for every shard count: the same measurements and files, and with
 * `remeasure: 'all'` and the same SOURCE_DATE_EPOCH the same bytes (by
 * default the bundle differs only in saying how many pairs merge re-measured).
 * Verifies the runs again, checks every partial against itself, the runs,
 * the media and merge's own decoder and policy, and re-measures `remeasure`
 * pairs per partial; refuses (exit 2 codes in docs/reason-codes.md, among
 * them PARTIAL_MEASUREMENT_INVALID and PARTIAL_MEASUREMENT_MISMATCH naming the
 * shard and the pair) before `out` is touched.
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
  const remeasure = checkRemeasure(options.remeasure);
  checkBounded('threads', options.threads);
  checkBounded('timeoutMs', options.timeoutMs);
  const generatedAt = resolveGeneratedAt(options.generatedAt);
  const inputs = [baseline, ...candidates];
  // A partial is an input too: --out may neither write into one nor replace one (real paths), and one writer at a time.
  await checkTempDirs(options.tempDir);
  const claim = await claimOut(options.out, [...inputs, ...options.partials], Boolean(options.force), checkOut);
  try {
    return await mergeClaimed(baseline, candidates, options, { policy, generatedAt, remeasure });
  } finally {
    await claim.release();
  }
}

async function mergeClaimed(
  baseline: string,
  candidates: readonly string[],
  options: MergeOptions,
  settled: { policy: Policy | undefined; generatedAt: Date; remeasure: RemeasureSpec },
): Promise<CompareResult> {
  const { policy, generatedAt, remeasure } = settled;
  // merge's own ffmpeg: it probes the media and re-measures with it, and the partials must name it.
  const decoder = decoderIdentity(await resolveFfmpeg(options.ffmpeg));
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
    const all = [...consistencyProblems(plan, partials, policy, decoder), ...coverageProblems(partials, counts.size === 1 ? [...counts][0]! : null)];
    if (all.length) refuse(all, 'nothing was merged');

    const first = partials[0]!.doc;
    // A calibration is checked before any probing or measuring, as compare checks it.
    const noise = options.calibration
      ? judgeNoise(parseCalibration(options.calibration, 'options.calibration'), checkAlpha(options.alpha ?? DEFAULT_ALPHA), { decoderSha256: decoder.sha256, baseline: plan.baseline })
      : null;
    const evidence = await evidenceProblems(plan, partials, decoder);
    if (evidence.length) refuse(evidence, 'nothing was merged');
    const facts = await mediaFactProblems(plan, partials, options);
    if (facts.length) refuse(facts, 'nothing was merged');
    // The clips each shard analysed on their own: checked once its pairs are known to be the media's.
    const clipChecks = partials.flatMap((p) => unpairedClipProblems(plan, p, decoder));
    if (clipChecks.length) refuse(clipChecks, 'nothing was merged');
    const again = await remeasured(plan, partials, remeasure, options);
    if (again.problems.length) refuse(again.problems, 'nothing was merged');

    // A re-measured pair is merge's own outcome (identical values, and a failure's message as merge's
    // measuring words it); every other pair is the partial's, checked as above.
    const pairs: MeasuredPair[] = partials
      .flatMap((p) => p.doc.pairs.map((x) => ({ index: x.index, pair: x.pair, outcome: again.outcomes.get(x.index) ?? x.outcome })))
      .sort((a, b) => a.index - b.index);
    // Each shard's clips analysed on their own (checked above); two shards may hold the same file's.
    // Merge's own analysis of those it analysed again.
    const clips = new Map<string, AnalysedClip>(again.clips);
    for (const p of partials) for (const c of p.doc.clips) if (!clips.has(c.sha256)) clips.set(c.sha256, c);
    const measured = { pairs, clips: [...clips.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1)) };
    // The baseline's own repetitions: measured here from the runs, with the partials' metric set, as compare measures them.
    const repetitions = options.repeatability ? await measureOwnRepetitions(plan, measureSettingsOf(withLimit(options, repetitionLimit(partials, options)), first.metrics.list, (e) => options.onProgress?.({ stage: 'repetitions', ...e }))) : undefined;
    const readers = await withContainerReaders(decoder, plan.runs);
    const assembled = assembleReport(plan, measured, { policy: first.policy, metrics: first.metrics, decoder: readers, generatedAt, measuredHere: again.count, ...(repetitions ? { repetitions } : {}) });
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
