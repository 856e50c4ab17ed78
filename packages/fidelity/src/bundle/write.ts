/**
 * Fills a (temporary) bundle folder: media copies, source metadata,
 * per-frame CSV, per-pair assets, report.json and its JSON Schema, the pages
 * (rendered by the caller), and last the seal. commitAtomically() decides when it becomes `--out`.
 *
 * Only report.json and the pages carry the generation time, so two bundles
 * of the same inputs differ in those SHA256SUMS lines and nowhere else.
 */
import path from 'node:path';
import { z } from 'zod';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { PairCapture } from '../media/frames.js';
import { sha256File } from '../hash.js';
import { Report, type PairReport } from '../schemas/report.js';
import { writePairFiles } from './pair-files.js';
import type { PairFile } from './assets.js';
import { copyVerified, writeDurable, walk } from '../output/files.js';
import { jsonText } from './json-text.js';
import { mediaPath } from './layout.js';
import { formatSeal, SEAL_FILE } from '../output/seal.js';

export interface BundleMedia {
  sha256: string;
  /** Human label for errors, e.g. "h200-run/media/measurement-r000-c000.mp4". */
  label: string;
  /** A readable file with these bytes (VerifiedRun.mediaPath). */
  open: () => Promise<string>;
  /** Throws MEDIA_CHANGED when that file is no longer the one verified (VerifiedRun.checkMedia): run once it is copied, its last use. */
  check?: () => Promise<void>;
}

export interface BundleSource {
  /** Bundle-relative folder, sources/<run_id>-<run_attempt>. */
  dir: string;
  files: { 'ci.json': Buffer; 'plan.json': Buffer; 'run.json': Buffer; SHA256SUMS: Buffer };
}

export interface BundleContents {
  report: Report;
  media: BundleMedia[];
  sources: BundleSource[];
  /** Bundle-relative folder of each comparison's per-pair files, in report order. */
  comparisonDirs: string[];
  /** Further files written as given and sealed (e.g. the power audit sidecars, power/<run>.json). */
  files?: { path: string; text: string }[];
  /** Which ffmpeg the pair assets are extracted with (the one that measured). */
  ffmpeg: ResolveOptions;
  /** Wall-clock limit of each ffmpeg child extracting stills and audio (default: media/frames.ts). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: { step: 'media' | 'sources' | 'pairs' | 'pages' | 'seal'; done: number; total: number }) => void;
  /**
   * Puts one pair's files under `prefix` and returns them as PairReport.files.
   * Default: writePairFiles from the media copies in the bundle; merge copies
   * the files its shards already made instead.
   */
  pairFiles?: (pair: PairReport, prefix: string, dir: string) => Promise<Record<string, string>>;
  /**
   * What measuring kept of the pair at `slotId` of comparison `comparison` (compare only), for the
   * default pair files: its stills and difference audio are made from it instead of decoding again.
   */
  captureOf?: (comparison: number, slotId: string) => PairCapture | undefined;
  /**
   * The files made ahead for the pair at `slotId` of comparison `comparison` (compare: while later
   * pairs were measured; bundle/pair-files.ts renderPairFilesAhead), written as they are; a pair
   * without them, or whose promise gives null, has its files made here.
   */
  madeOf?: (comparison: number, slotId: string) => Promise<readonly PairFile[] | null> | undefined;
  /**
   * Pairs whose files are made at once (default 1). Each pair's stills, heat map and difference
   * audio are one ffmpeg at a time and then single-threaded JavaScript and libwebp work, so on
   * several cores pairs overlap; the bytes do not depend on it (every pair writes its own paths,
   * and its files are recorded in report order).
   */
  concurrency?: number;
  /**
   * The report pages, rendered from the report as written (pair files filled
   * in): bundle-relative path and text. The caller renders them (pages/), so
   * the bundle's files and its pages stay apart.
   */
  pages: (report: Report) => { path: string; text: string }[];
}

/**
 * Runs `work` on every item, at most `lanes` at once, starting them in order (so progress counts in
 * that order). Once one fails no other starts, and its error is thrown only after every started item
 * has ended: nothing is left writing into a folder that is about to be dropped.
 */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        await work(items[i]!, i);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/** report.json's bytes: schema-checked, schema key order, objects indented, arrays of numbers on one line (json-text.ts). */
export function reportJsonText(report: Report): string {
  // Parsing through the schema proves report.json matches report.schema.json and fixes the key order.
  return jsonText(Report.parse(report));
}

/** report.schema.json's bytes, written like report.json. */
export function reportSchemaText(): string {
  return jsonText(z.toJSONSchema(Report));
}

/** Writes everything into `dir` and returns the report as written (with pair files filled in) and the number of sealed files. */
export async function writeBundleContents(dir: string, contents: BundleContents): Promise<{ report: Report; files: number }> {
  const progress = contents.onProgress ?? (() => undefined);
  const at = (rel: string): string => path.join(dir, ...rel.split('/'));

  const media = [...contents.media].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
  /**
   * Digests of files whose every byte was hashed on its way to the disk here. The MP4 copies are
   * most of a bundle's bytes: copyVerified proved each copy's digest as it wrote it, so the seal
   * reuses it instead of reading the file back and hashing it once more.
   */
  const hashedOnWrite = new Map<string, string>();
  for (const [i, m] of media.entries()) {
    progress({ step: 'media', done: i, total: media.length });
    await copyVerified(await m.open(), at(mediaPath(m.sha256)), m.sha256, m.label);
    await m.check?.();
    hashedOnWrite.set(mediaPath(m.sha256), m.sha256);
  }

  for (const [i, s] of contents.sources.entries()) {
    progress({ step: 'sources', done: i, total: contents.sources.length });
    await writeDurable(at(`${s.dir}/ci.json`), s.files['ci.json']);
    await writeDurable(at(`${s.dir}/plan.json`), s.files['plan.json']);
    await writeDurable(at(`${s.dir}/run.json`), s.files['run.json']);
    await writeDurable(at(`${s.dir}/original-SHA256SUMS`), s.files.SHA256SUMS);
  }

  for (const f of [...(contents.files ?? [])].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    await writeDurable(at(f.path), f.text);
  }

  const report: Report = structuredClone(contents.report);
  const pairs = report.comparisons.flatMap((cmp, c) => cmp.pairs.map((pair) => ({ pair, c, prefix: `${contents.comparisonDirs[c]!}/${pair.slot_id}` })));
  await inLanes(pairs, contents.concurrency ?? 1, async ({ pair, c, prefix }, i) => {
    const capture = contents.captureOf?.(c, pair.slot_id);
    const made = contents.madeOf?.(c, pair.slot_id);
    progress({ step: 'pairs', done: i, total: pairs.length });
    const files = contents.pairFiles
      ? await contents.pairFiles(pair, prefix, dir)
      : await writePairFiles({
          dir,
          pair,
          prefix,
          baselinePath: pair.baseline_media ? at(pair.baseline_media) : null,
          candidatePath: pair.candidate_media ? at(pair.candidate_media) : null,
          ...(capture ? { capture } : {}),
          ...(made ? { made } : {}),
          ffmpeg: contents.ffmpeg,
          ...(contents.timeoutMs ? { timeoutMs: contents.timeoutMs } : {}),
          ...(contents.signal ? { signal: contents.signal } : {}),
        });
    pair.files = { ...pair.files, ...files };
  });

  const written = Report.parse(report);
  await writeDurable(at('report.json'), reportJsonText(written));
  await writeDurable(at('report.schema.json'), reportSchemaText());
  const pages = contents.pages(written);
  progress({ step: 'pages', done: 0, total: pages.length });
  for (const page of pages) await writeDurable(at(page.path), page.text);

  const entries = [];
  const all = (await walk(dir)).filter((e) => e.kind === 'file' && e.path !== SEAL_FILE);
  for (const [i, e] of all.entries()) {
    progress({ step: 'seal', done: i, total: all.length });
    entries.push({ path: e.path, sha256: hashedOnWrite.get(e.path) ?? (await sha256File(at(e.path))) });
  }
  await writeDurable(at(SEAL_FILE), formatSeal(entries));
  return { report: written, files: entries.length };
}
