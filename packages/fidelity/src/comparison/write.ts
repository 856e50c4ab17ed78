/**
 * Phase 4 of compare(): the bundle. Built in a temp folder and renamed into
 * place (output/atomic.ts), so `out` is either the whole new bundle or what
 * it was before. The bundle's files come from bundle/, its pages from pages/:
 * this phase is where the two meet.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { VerifiedRun } from '../archive/types.js';
import { commitAtomically } from '../output/atomic.js';
import { sourceName } from '../archive/source.js';
import { comparisonDir, sourcesDir } from '../bundle/layout.js';
import { evidenceFiles } from './report-model.js';
import { SEAL_FILE } from '../output/seal.js';
import { writeBundleContents, type BundleMedia } from '../bundle/write.js';
import type { Lang } from '../pages/i18n.js';
import type { CompareResult } from './types.js';
import { FidelityError } from '../errors.js';
import type { ResolveOptions } from '../media/ffmpeg.js';
import type { PairCapture } from '../media/frames.js';
import type { PairFile } from '../bundle/assets.js';
import type { PairReport, Report } from '../schemas/report.js';
import type { ComparisonPlan } from './plan.js';
import { defaultThreadCount } from '../pool/threads.js';

/** The pages of a bundle, English first. */
const LANGS: readonly Lang[] = ['en', 'zh'];

/** Each distinct media file once, keyed by its sealed sha256, opened from the first run that has it. */
function distinctMedia(plan: ComparisonPlan): BundleMedia[] {
  const media = new Map<string, BundleMedia>();
  const add = (run: VerifiedRun, slotId: string, entry: { sha256: string; path: string } | null): void => {
    if (!entry || media.has(entry.sha256)) return;
    media.set(entry.sha256, { sha256: entry.sha256, label: `${sourceName(run.source.path)}/${entry.path}`, open: () => run.mediaPath(slotId), check: () => run.checkMedia(slotId) });
  };
  for (const cmp of plan.comparisons) {
    for (const pair of cmp.pairs) {
      add(plan.baseline, pair.slot_id, pair.baseline.media);
      add(cmp.candidate, pair.slot_id, pair.candidate.media);
    }
  }
  return [...media.values()];
}

/** A pair's entry by its place in the report (comparison, slot), from entries by pair id (captures, files made ahead). */
function byPlace<T>(plan: ComparisonPlan, byId: ReadonlyMap<string, T>): (comparison: number, slotId: string) => T | undefined {
  const ids = new Map(plan.pairs.map((r) => [`${r.comparison}/${r.pair.slot_id}`, r.id]));
  return (comparison, slotId) => {
    const id = ids.get(`${comparison}/${slotId}`);
    return id === undefined ? undefined : byId.get(id);
  };
}

/** How writeBundle writes (the report and plan say what). */
export interface WriteBundleSettings {
  /** Replace a non-empty `out` that is not a bundle (the rules of compare()'s `out`). */
  force?: boolean;
  /** The ffmpeg the pair assets are extracted with (the one that measured). */
  ffmpeg?: ResolveOptions;
  /** Wall-clock limit of each still / audio extraction. */
  timeoutMs?: number;
  /** Cancels: `out` is left as it was and the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
  /** Told each step's count as files are written: media copied, sources, pairs' files, pages, the seal. */
  onProgress?: (event: { step: 'media' | 'sources' | 'pairs' | 'pages' | 'seal'; done: number; total: number }) => void;
  /** Further sealed files (e.g. calibration.json), written as given. */
  files?: { path: string; text: string }[];
  /** Pairs whose files are made at once; default one per core. */
  threads?: number;
  /** What measuring kept of each pair, by pair id (MeasureSettings.keep): its stills and difference audio come from it. */
  captures?: ReadonlyMap<string, PairCapture>;
  /** Each pair's files made while later pairs were measured, by pair id (FilesAhead.made): written as they are. */
  made?: ReadonlyMap<string, Promise<readonly PairFile[] | null>>;
  /**
   * Puts one pair's files under `prefix` in the bundle folder `dir` and returns them as the pair's
   * `files`. Default: made from the pair's media (stills, difference audio); merge copies the files
   * its shards already made instead.
   */
  pairFiles?: (pair: PairReport, prefix: string, dir: string) => Promise<Record<string, string>>;
}

/** Writes the bundle of `report` to `out` atomically and returns what compare() returns. */
export async function writeBundle(out: string, plan: ComparisonPlan, report: Report, settings: WriteBundleSettings = {}): Promise<CompareResult> {
  // The pages (preact and its renderer) load with the first bundle written, not with the library:
  // importing it to verify or plan pays nothing for them (docs/performance.md, "Start-up").
  const [{ renderReport }, { PAGE_FILE }] = await Promise.all([import('../pages/page.js'), import('../pages/i18n.js')]);
  const written = await commitAtomically(out, Boolean(settings.force), async (dir) => {
    const contents = await writeBundleContents(dir, {
      report,
      media: distinctMedia(plan),
      sources: plan.runs.map((r) => ({ dir: sourcesDir(r), files: r.files })),
      comparisonDirs: plan.comparisons.map((c) => comparisonDir(c.candidate)),
      files: [...plan.runs.flatMap(evidenceFiles), ...(settings.files ?? [])],
      ffmpeg: settings.ffmpeg ?? {},
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
      ...(settings.signal ? { signal: settings.signal } : {}),
      ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
      ...(settings.pairFiles ? { pairFiles: settings.pairFiles } : {}),
      ...(settings.captures ? { captureOf: byPlace(plan, settings.captures) } : {}),
      ...(settings.made ? { madeOf: byPlace(plan, settings.made) } : {}),
      concurrency: settings.threads ?? defaultThreadCount(),
      pages: (written) => LANGS.map((lang) => ({ path: PAGE_FILE[lang], text: renderReport(written, lang) })),
    });
    // Cancelled while writing: the finished temp folder is dropped rather than put in place.
    if (settings.signal?.aborted) throw new FidelityError('ABORTED', 'the comparison was cancelled; --out was left as it was');
    return contents;
  });
  const seal = await readFile(path.join(out, SEAL_FILE));
  return {
    out,
    index: path.join(out, PAGE_FILE.en),
    report: written.report,
    files: written.files,
    seal_sha256: createHash('sha256').update(seal).digest('hex'),
  };
}
