/**
 * partial.json, schema_version 1 (docs/scale-out.md): what one shard
 * measured, with everything merge needs to prove that the shards belong
 * together. Each partial ships a JSON Schema generated from this file
 * (partial.schema.json), like report.schema.json in a bundle.
 */
import { z } from 'zod';
import { MetricSelection } from '../metrics/names.js';
import { MeasureOutcome } from '../schemas/measurement.js';
import { AnalysedClip } from '../schemas/clip.js';
import { Policy } from '../schemas/policy.js';
import { jsonText } from '../bundle/json-text.js';
import { Report } from '../schemas/report.js';
import { MAX_TIMEOUT_MS } from '../pool/pair-options.js';

/** The partial's own description, at its root. */
export const PARTIAL_FILE = 'partial.json';
/** The JSON Schema of partial.json, written beside it. */
export const PARTIAL_SCHEMA_FILE = 'partial.schema.json';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** The identity of one input run: merge refuses a partial whose runs differ in any field. */
export const PartialRun = z.object({
  role: z.enum(['baseline', 'candidate']),
  run_id: z.number().int(),
  run_attempt: z.number().int(),
  /** SHA-256 of the run's SHA256SUMS: pins every file of the run. */
  seal_sha256: Sha256,
  plan_sha256: Sha256,
});
export type PartialRun = z.infer<typeof PartialRun>;

/** One pair of the shard: its measurement, and the files of the bundle this partial holds for it. */
export const PartialPair = z.object({
  /** j in the ordered pair list (j mod shard.count == shard.index). */
  index: z.number().int().min(0),
  /** `<candidate run_id>-<run_attempt>/<slot_id>`. */
  pair: z.string(),
  /** null when pairing refused the pair before measuring. */
  outcome: MeasureOutcome.nullable(),
  /** PairReport.files, folder-relative; the same paths in this partial and in the bundle. */
  files: z.record(z.string(), z.string()),
});
export type PartialPair = z.infer<typeof PartialPair>;

/** partial.json: one shard's measurements and the identity of everything they depend on. */
export const ShardPartial = z.object({
  schema_version: z.literal(1),
  /** SOURCE_DATE_EPOCH when set, else the time the shard finished. */
  generated_at: z.string(),
  tool: z.object({ name: z.literal('fidelity'), version: z.string() }),
  /** The ffmpeg and ffprobe that measured (report.json's decoder). */
  decoder: Report.shape.decoder,
  shard: z.object({ index: z.number().int().min(0), count: z.number().int().min(1) }),
  /** Baseline first, then the candidates in the order given. */
  runs: z.array(PartialRun),
  /** The metric set this shard measured with; merge refuses partials of different sets. */
  metrics: MetricSelection,
  policy: Policy,
  /**
   * The shard's limit on each ffmpeg/ffprobe child, in milliseconds (`--decode-timeout`); null for
   * the default. Merge probes and re-measures this partial's pairs and clips with it.
   */
  decode_timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).nullable(),
  /** Length of the ordered pair list over all comparisons. */
  pairs_total: z.number().int().min(0),
  /** The indices this shard covers, ascending (empty when N > pairs_total - K). */
  pair_indices: z.array(z.number().int().min(0)),
  pairs: z.array(PartialPair),
  /**
   * The clips whose home is one of this shard's pairs (the first pair of the ordered list that shows
   * the clip) and that none of its pairs analysed, each analysed on its own, by SHA-256 ascending
   * (docs/scale-out.md, "Clips analysed on their own").
   */
  clips: z.array(AnalysedClip),
});
export type ShardPartial = z.infer<typeof ShardPartial>;

/** partial.json's bytes: schema-checked, schema key order, written like report.json (bundle/json-text.ts). */
export function partialJsonText(partial: ShardPartial): string {
  return jsonText(ShardPartial.parse(partial));
}

/** partial.schema.json's bytes, written like partial.json. */
export function partialSchemaText(): string {
  return jsonText(z.toJSONSchema(ShardPartial));
}
