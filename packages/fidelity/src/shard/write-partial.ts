/**
 * A shard's output folder, the partial: partial.json, its JSON Schema, the
 * per-pair files the bundle will hold (CSV, stills, heat map, difference audio) at the
 * paths the bundle will hold them, made from what measuring kept of each pair as
 * compare's bundle is, and SHA256SUMS over all of it. No MP4
 * copies: merge takes the media from the runs. Written like a bundle
 * (output/atomic.ts): complete or absent.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { VerifiedRun } from '../archive/types.js';
import { commitAtomically } from '../output/atomic.js';
import { writeDurable, walk } from '../output/files.js';
import { formatSeal, SEAL_FILE } from '../output/seal.js';
import { inLanes } from '../bundle/write.js';
import { writePairFiles } from '../bundle/pair-files.js';
import type { PairFile } from '../bundle/assets.js';
import { comparisonDir } from '../bundle/layout.js';
import type { DecoderIdentity } from '../comparison/types.js';
import type { MeasuredPairs } from '../comparison/measure.js';
import type { ComparisonPlan } from '../comparison/plan.js';
import { FidelityError } from '../errors.js';
import { sha256File } from '../hash.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { PairCapture } from '../media/frames.js';
import type { MetricSelection } from '../metrics/names.js';
import type { Policy } from '../schemas/policy.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { PARTIAL_FILE, PARTIAL_SCHEMA_FILE, partialJsonText, partialSchemaText, type PartialPair, type PartialRun, type ShardPartial } from './schema.js';
import type { ShardSpec } from './spec.js';

/** What compare() returns with `shard`: the partial written, and where. */
export interface PartialResult {
  /** The partial folder, as given. */
  out: string;
  shard: ShardSpec;
  /** Indices of the ordered pair list this shard covers. */
  pairs: number[];
  /** Pairs of those that went through the measuring pool. */
  measured: number;
  /** Files sealed in the partial's SHA256SUMS. */
  files: number;
  /** SHA-256 of the partial's SHA256SUMS. */
  seal_sha256: string;
  partial: ShardPartial;
}

/** The identity merge checks a run against (ids, attempt, seal, plan). */
export function partialRun(run: VerifiedRun, role: PartialRun['role']): PartialRun {
  return {
    role,
    run_id: run.ci.run_id,
    run_attempt: run.ci.run_attempt,
    seal_sha256: createHash('sha256').update(run.files.SHA256SUMS).digest('hex'),
    plan_sha256: run.plan_sha256,
  };
}

/** What a partial records besides the plan and the measurements, and how it is written. */
export interface WritePartialSettings {
  /** Which shard of how many this partial is. */
  shard: ShardSpec;
  /** The thresholds the shard's pairs were judged by (merge requires the same in every partial). */
  policy: Policy;
  /** The metric set the pairs were measured with. */
  metrics: MetricSelection;
  /** The ffmpeg/ffprobe that measured ({@link decoderIdentity}). */
  decoder: DecoderIdentity;
  /** The partial's generated_at. */
  generatedAt: Date;
  /** Replace a non-empty `out` that is not a partial (the rules of compare()'s `out`). */
  force?: boolean;
  /** The ffmpeg a pair's stills and audio are extracted with when nothing was kept of it (the one that measured). */
  ffmpeg?: ResolveOptions;
  /** The limit on each ffmpeg/ffprobe child the shard measured with (compare's `timeoutMs`); recorded in the partial. */
  timeoutMs?: number;
  /** Cancels: `out` is left as it was and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** Pairs whose files are made at once; default 1. */
  threads?: number;
  /** Told each step's count as files are written: pairs' files, then the seal. */
  onProgress?: (event: { step: 'pairs' | 'seal'; done: number; total: number }) => void;
  /**
   * What measuring kept of each pair, by pair id (MeasureSettings.keep): its stills and difference
   * audio are made from it, as compare's bundle makes them; a pair without one is extracted again
   * from the runs' media (the same bytes).
   */
  captures?: ReadonlyMap<string, PairCapture>;
  /** The files made ahead of each pair, by pair id (WriteBundleSettings.made): written as they are. */
  made?: ReadonlyMap<string, Promise<readonly PairFile[] | null>>;
}

/** Writes the partial of `measuredPairs` (this shard's pairs and the clips it analysed on their own) to `out`, atomically. */
export async function writePartial(out: string, plan: ComparisonPlan, measuredPairs: MeasuredPairs, settings: WritePartialSettings): Promise<PartialResult> {
  const measured = measuredPairs.pairs;
  const progress = settings.onProgress ?? (() => undefined);
  const written = await commitAtomically(out, Boolean(settings.force), async (dir) => {
    const pairs: PartialPair[] = new Array<PartialPair>(measured.length);
    // Several pairs' files at once (bundle/write.ts inLanes): each writes its own paths, and `pairs` keeps measured order.
    await inLanes(measured, settings.threads ?? 1, async (m, i) => {
      progress({ step: 'pairs', done: i, total: measured.length });
      const ref = plan.pairs[m.index]!;
      // The pair's figures only: a partial holds measurements, and merge judges them (comparison/assemble.ts).
      const measurement = m.outcome?.ok ? m.outcome.measurement : null;
      const slot = ref.pair.slot_id;
      const capture = settings.captures?.get(m.pair);
      const made = settings.made?.get(m.pair);
      const files = await writePairFiles({
        dir,
        pair: { video: measurement?.video ?? null, audio: measurement?.audio ?? null },
        prefix: `${comparisonDir(ref.candidate)}/${slot}`,
        baselinePath: ref.pair.baseline.media ? await plan.baseline.mediaPath(slot) : null,
        candidatePath: ref.pair.candidate.media ? await ref.candidate.mediaPath(slot) : null,
        ...(capture ? { capture } : {}),
        ...(made ? { made } : {}),
        ffmpeg: settings.ffmpeg ?? {},
        ...(settings.signal ? { signal: settings.signal } : {}),
      });
      // The files were made from the verified bytes: both files unchanged since (docs/media.md, "Media that change").
      if (ref.pair.baseline.media) await plan.baseline.checkMedia(slot);
      if (ref.pair.candidate.media) await ref.candidate.checkMedia(slot);
      pairs[i] = { index: m.index, pair: m.pair, outcome: m.outcome, files };
    });
    const partial: ShardPartial = {
      schema_version: 1,
      generated_at: settings.generatedAt.toISOString(),
      tool: { name: TOOL_NAME, version: TOOL_VERSION },
      decoder: settings.decoder,
      shard: { index: settings.shard.index, count: settings.shard.count },
      runs: plan.runs.map((r, i) => partialRun(r, i === 0 ? 'baseline' : 'candidate')),
      metrics: { set: settings.metrics.set, list: [...settings.metrics.list] },
      policy: settings.policy,
      decode_timeout_ms: settings.timeoutMs ?? null,
      pairs_total: plan.pairs.length,
      pair_indices: measured.map((m) => m.index),
      pairs,
      clips: measuredPairs.clips,
    };
    await writeDurable(path.join(dir, PARTIAL_FILE), partialJsonText(partial));
    await writeDurable(path.join(dir, PARTIAL_SCHEMA_FILE), partialSchemaText());
    const entries = [];
    const all = (await walk(dir)).filter((e) => e.kind === 'file' && e.path !== SEAL_FILE);
    for (const [i, e] of all.entries()) {
      progress({ step: 'seal', done: i, total: all.length });
      entries.push({ path: e.path, sha256: await sha256File(path.join(dir, ...e.path.split('/'))) });
    }
    await writeDurable(path.join(dir, SEAL_FILE), formatSeal(entries));
    if (settings.signal?.aborted) throw new FidelityError('ABORTED', 'the shard was cancelled; --partial was left as it was');
    return { partial, files: entries.length };
  }, 'partial');
  const seal = await readFile(path.join(out, SEAL_FILE));
  return {
    out,
    shard: { index: settings.shard.index, count: settings.shard.count },
    pairs: written.partial.pair_indices,
    measured: measured.filter((m) => m.outcome !== null).length,
    files: written.files,
    seal_sha256: createHash('sha256').update(seal).digest('hex'),
    partial: written.partial,
  };
}
