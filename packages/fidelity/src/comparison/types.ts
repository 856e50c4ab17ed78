/**
 * The types the phases of compare() and their entry points share (compare,
 * a shard, merge): what they report while working, what they return, and
 * which decoder measured. They live at the bottom of comparison/ so that a
 * phase never imports the entry point that composes it.
 */
import type { Report } from '../schemas/report.js';

/** Progress events of compare() and merge(), by stage, in order: verify, measure (compare only) or merge, repetitions (with `repeatability`), bundle. */
export type CompareProgress =
  | { stage: 'verify'; done: number; total: number; run: string }
  | { stage: 'measure'; pairsDone: number; pairsTotal: number; framesDone: number; framesTotal: number }
  /** `repeatability` only, after `measure`: the baseline's own repetitions whose bytes differ from its repetition 0, each measured against it. */
  | { stage: 'repetitions'; pairsDone: number; pairsTotal: number; framesDone: number; framesTotal: number }
  | { stage: 'bundle'; step: string; done: number; total: number }
  /** merge(): reading and checking the partials, then probing the media of every measured pair (then `measure` for the pairs it re-measures). */
  | { stage: 'merge'; step: 'partials' | 'media'; done: number; total: number };

/** What compare() (without a shard) and merge() return: the written bundle. */
export interface CompareResult {
  /** The bundle folder, as given. */
  out: string;
  /** The English page inside it. */
  index: string;
  report: Report;
  /** Files sealed in SHA256SUMS (every file of the bundle but SHA256SUMS itself), as verify-bundle counts them. */
  files: number;
  /** SHA-256 of the bundle's SHA256SUMS: publish it to pin the whole bundle. */
  seal_sha256: string;
}

/** report.json's `decoder`: the ffmpeg and ffprobe that measured. */
export type DecoderIdentity = Report['decoder'];
