/**
 * Shards and merge on the committed fixtures (H200 against B200 and H100:
 * 20 pairs in two comparisons), through the library: the merged bundle of
 * N = 1, 2, 3 and 7 shards, every pair's outcome taken from the partials
 * (remeasure: 0), is the one-machine compare() bundle with the same
 * SOURCE_DATE_EPOCH in every byte but the count of pairs merge re-measured;
 * with every pair re-measured by merge (remeasure: 'all', N = 7) it is that
 * bundle byte for byte (with the default sample: test/shard/evidence.test.ts);
 * a run of more shards than pairs (empty
 * partials) on generated runs; and every refusal of a partial set, each with
 * its code, naming the partials, leaving --out untouched.
 *
 * The one-machine bundle and the partials of N shards are the run's shared data
 * (test/shared/fixtures.ts): built once per test run, read here, copied before any change.
 */
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, type CompareOptions } from '../../src/compare.js';
import { FidelityError } from '../../src/errors.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { fill, fillCount, messages } from '../../src/pages/i18n.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { merge } from '../../src/shard/merge.js';
import { ShardPartial } from '../../src/shard/schema.js';
import { reseal, sha256, snapshot } from '../../../../test/e2e/helpers.js';
import { fixtureBundle, fixturePartials, generatedRuns, SHARED_EPOCH } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = path.join(ROOT, 'fixtures', 'runs');
const BASE = path.join(FIX, 'h200');
const CANDS = [path.join(FIX, 'b200'), path.join(FIX, 'h100')];
const EPOCH = SHARED_EPOCH;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-merge-'));
/** Shared data, read only: the one-machine bundle ('one') and the partials of N shards ('p1', 'p2', 'p3', 'p7'). */
const shared = new Map<string, string>();
/** A path under this file's own folder, or under a shared entry when its first part names one. */
const at = (...p: string[]) => {
  const [first, ...rest] = p.join('/').split('/');
  const root = shared.get(first!);
  return root ? path.join(root, ...rest) : path.join(tmp, ...p);
};
/** A path under this file's own folder only (for what it writes). */
const own = (...p: string[]) => path.join(tmp, ...p);
const saved = process.env.SOURCE_DATE_EPOCH;


async function shards(n: number, dir: string, options: Partial<CompareOptions> = {}, runs = CANDS, only?: number[]): Promise<void> {
  for (const k of only ?? [...Array(n).keys()]) {
    await compare(BASE, runs, { ...options, out: path.join(dir, String(k)), shard: { index: k, count: n }, threads: 2 });
  }
}

async function refused(p: Promise<unknown>): Promise<FidelityError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FidelityError);
  return error as FidelityError;
}
const codes = (e: FidelityError) => e.problems.map((p) => p.code);
const mergeOf = (partials: string[], out: string, extra: Partial<Parameters<typeof merge>[2]> = {}) => merge(BASE, CANDS, { partials, out, ...extra });

/** A set of partial folders under `name`, copied from the shared ones and the ones made here. */
function set(name: string, parts: [string, string][]): string {
  for (const [from, as] of parts) cpSync(at(from), own(name, as), { recursive: true });
  return own(name);
}

const N = [1, 2, 3, 7];
beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = EPOCH;
  // compare(BASE, CANDS, { threads: 2 }) and shards(n) at EPOCH, as every file of the run shares them.
  shared.set('one', (await fixtureBundle(['b200', 'h100'])).dir);
  // The same inputs again, one thread: SOURCE_DATE_EPOCH alone makes the bytes equal.
  await compare(BASE, CANDS, { out: at('again'), threads: 1 });
  for (const n of N) {
    shared.set(`p${n}`, (await fixturePartials(['b200', 'h100'], n)).dir);
    // Every outcome from the partials: what merge assembles from N shards, nothing re-measured.
    await merge(BASE, CANDS, { partials: [at(`p${n}`)], out: at(`m${n}`), remeasure: 0, threads: 2 });
  }
  // Every outcome measured again by merge: re-measuring does not depend on N, so once.
  await merge(BASE, CANDS, { partials: [at('p7')], out: at('m7-all'), remeasure: 'all', threads: 2 });
}, 900_000);

/**
 * A bundle merged with remeasure 0 (path -> sha256), as it would be had merge measured every pair
 * itself: the count of pairs it re-measured (report.json's measurement_origin and one sentence of
 * each page), the only thing remeasure changes, swapped for compare's, and SHA256SUMS to match.
 * Each swapped text must occur exactly once.
 */
function asMeasuredHere(dir: string, pairs: number): Record<string, string> {
  const files = snapshot(dir);
  const sentence = (lang: 'en' | 'zh', key: 'measured_merge' | 'measured_all') => (key === 'measured_all' ? fillCount(messages(lang), key, pairs) : fill(messages(lang)[key], { here: 0, pairs }));
  const swaps: [string, string, string][] = [
    ['report.json', `"measured_here": 0,\n    "taken_from_shards": ${pairs}`, `"measured_here": ${pairs},\n    "taken_from_shards": 0`],
    ['index.html', sentence('en', 'measured_merge'), sentence('en', 'measured_all')],
    ['index.zh.html', sentence('zh', 'measured_merge'), sentence('zh', 'measured_all')],
  ];
  let sums = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8');
  for (const [file, from, to] of swaps) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    expect(text.split(from).length - 1, `${file}: ${from}`).toBe(1);
    const digest = sha256(text.replace(from, to));
    sums = sums.replace(`${files[file]!}  ${file}\n`, `${digest}  ${file}\n`);
    files[file] = digest;
  }
  files['SHA256SUMS'] = sha256(sums);
  return files;
}
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

describe('merged shards', () => {
  it('two compare() runs of the same inputs with SOURCE_DATE_EPOCH give identical bytes', () => {
    const one = snapshot(at('one'));
    // Media, sources, pages and every pair's files (one still for a bit-identical pair, four pictures otherwise).
    expect(Object.keys(one).length).toBeGreaterThan(80);
    expect(Object.keys(one).filter((f) => f.endsWith('.webp')).length).toBeGreaterThan(10);
    expect(snapshot(at('again'))).toEqual(one);
    const report = JSON.parse(readFileSync(at('one', 'report.json'), 'utf8'));
    expect(report.generated_at).toBe('2025-11-29T21:00:00.000Z');
    // Pairs whose two sides are the same sealed bytes (probed and analysed once: PairJob.sameMedia) are among
    // them, their clips given to both sides: the bytes above hold for them too, at 1 and 2 threads.
    const pairs = (report.comparisons as { pairs: { baseline_media: string | null; candidate_media: string | null; clips?: { baseline: unknown; candidate: unknown } }[] }[]).flatMap((c) => c.pairs);
    const same = pairs.filter((p) => p.baseline_media !== null && p.baseline_media === p.candidate_media && p.clips);
    expect(same.length).toBeGreaterThan(2);
    for (const p of same) expect(p.clips!.candidate).toEqual(p.clips!.baseline);
  });

  it.each(N)('N = %i, every outcome taken from the partials: the one-machine bundle in every byte but the count of pairs merge re-measured', (n) => {
    const pairs = (JSON.parse(readFileSync(at('one', 'report.json'), 'utf8')) as { measurement_origin: { pairs: number } }).measurement_origin.pairs;
    expect(pairs).toBe(19);
    expect(asMeasuredHere(at(`m${n}`), pairs)).toEqual(snapshot(at('one')));
  });

  it('N = 7, every pair re-measured by merge (remeasure all): byte for byte the one-machine bundle', () => {
    expect(snapshot(at('m7-all'))).toEqual(snapshot(at('one')));
  });

  it('writes sealed partials with the pairs of j mod N == K, per-pair files and no MP4', () => {
    const dir = at('p3', '1');
    const doc = ShardPartial.parse(JSON.parse(readFileSync(path.join(dir, 'partial.json'), 'utf8')));
    expect(doc.shard).toEqual({ index: 1, count: 3 });
    expect(doc.pairs_total).toBe(20);
    expect(doc.pair_indices).toEqual([1, 4, 7, 10, 13, 16, 19]);
    expect(doc.generated_at).toBe('2025-11-29T21:00:00.000Z');
    expect(doc.runs.map((r) => [r.role, r.run_id, r.run_attempt])).toEqual([
      ['baseline', 30054883436, 1],
      ['candidate', 30061277519, 2],
      ['candidate', 30049902211, 1],
    ]);
    const files = Object.keys(snapshot(dir));
    expect(files.filter((f) => f.endsWith('.mp4'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['partial.json', 'partial.schema.json', 'SHA256SUMS']));
    const sealed = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.slice(66));
    expect(sealed).toEqual(files.filter((f) => f !== 'SHA256SUMS'));
    // Every pair file the bundle holds for these pairs is in the partial, with the same bytes.
    const bundle = snapshot(at('one'));
    for (const pair of doc.pairs) for (const f of Object.values(pair.files)) expect(sha256(readFileSync(path.join(dir, f))), f).toBe(bundle[f]);
    expect(doc.pairs.some((p) => Object.keys(p.files).length >= 4)).toBe(true);
    // How rgb24 was made travels with each measurement, and the merged report has it as compare() wrote it.
    const measured = doc.pairs.flatMap((p) => (p.outcome?.ok ? [p.outcome.measurement.video] : []));
    expect(measured.length).toBeGreaterThan(3);
    for (const v of measured) expect([v.rgb_conversion, v.rgb_matrix, v.rgb_range]).toEqual(['fidelity', 'bt601', 'limited']);
    const merged = JSON.parse(readFileSync(at('m3', 'report.json'), 'utf8')) as { comparisons: { pairs: { video: { rgb_conversion?: string } | null }[] }[] };
    const videos = merged.comparisons.flatMap((c) => c.pairs.flatMap((p) => (p.video ? [p.video] : [])));
    expect(videos.length).toBeGreaterThan(10);
    expect(videos.every((v) => v.rgb_conversion === 'fidelity')).toBe(true);
    // Pairing refused c006 on B200 (failed request): covered, never measured.
    const refusedPair = ShardPartial.parse(JSON.parse(readFileSync(at('p1', '0', 'partial.json'), 'utf8'))).pairs[6]!;
    expect(refusedPair).toMatchObject({ index: 6, pair: '30061277519-2/measurement-r000-c006', outcome: null, files: {} });
  });

  it('replaces a previous partial in place (a requeued shard) and gives the same bytes', async () => {
    // A copy of the shared partial: the requeued shard overwrites it.
    const requeued = own('requeued', '6');
    cpSync(at('p7', '6'), requeued, { recursive: true });
    const before = snapshot(requeued);
    expect(before).toEqual(snapshot(at('p7', '6')));
    await compare(BASE, CANDS, { out: requeued, shard: { index: 6, count: 7 } });
    expect(snapshot(requeued)).toEqual(before);
  }, 300_000);
});

describe('more shards than pairs', () => {
  it('writes empty partials that merge accepts, for the same bytes as compare()', async () => {
    const runs = await generatedRuns({ size: 'small', sites: ['H200', 'B200'], cases: 2 });
    const dir = (site: string) => runs.runs.find((r) => r.site === site)!.dir;
    await compare(dir('H200'), [dir('B200')], { out: at('gen-one') });
    // Two pairs in three shards: shards 0 and 1 hold one pair each, shard 2 none (one empty partial is enough to show merge accepts it).
    for (let k = 0; k < 3; k++) await compare(dir('H200'), [dir('B200')], { out: at('gen-p', String(k)), shard: { index: k, count: 3 } });
    const empty = ShardPartial.parse(JSON.parse(readFileSync(at('gen-p', '2', 'partial.json'), 'utf8')));
    expect(empty).toMatchObject({ pairs_total: 2, pair_indices: [], pairs: [] });
    await merge(dir('H200'), [dir('B200')], { partials: [at('gen-p')], out: at('gen-merged'), remeasure: 'all' });
    expect(snapshot(at('gen-merged'))).toEqual(snapshot(at('gen-one')));
  }, 600_000);
});

describe('merge refuses', () => {
  const out = () => at(`out-${Math.random().toString(36).slice(2)}`);

  it('missing shards, listing them as a Slurm --array= expression', async () => {
    const dir = set('missing', [['p7/0', '0'], ['p7/1', '1'], ['p7/2', '2'], ['p7/6', '6']]);
    const o = out();
    const e = await refused(mergeOf([dir], o));
    expect(e.code).toBe('SHARD_MISSING');
    expect(e.problems[0]!.message).toContain('--array=3-5');
    expect(existsSync(o)).toBe(false);
    const two = await refused(mergeOf([set('missing2', [['p7/0', '0'], ['p7/1', '1'], ['p7/2', '2'], ['p7/4', '4'], ['p7/5', '5']])], out()));
    expect(two.problems[0]!.message).toContain('--array=3,6');
  });

  it('a shard given twice, naming both partials', async () => {
    const dir = set('dup', [['p2/0', 'a'], ['p2/1', 'b'], ['p2/1', 'c']]);
    const e = await refused(mergeOf([dir], out()));
    expect(codes(e)).toEqual(['SHARD_DUPLICATE']);
    expect(e.problems[0]!.message).toContain(path.join(dir, 'b'));
    expect(e.problems[0]!.message).toContain(path.join(dir, 'c'));
  });

  it('partials of different shard counts, and the pairs they both hold', async () => {
    const e = await refused(mergeOf([at('p2', '0'), at('p2', '1'), at('p3', '2')], out()));
    expect(codes(e)).toEqual(expect.arrayContaining(['PARTIAL_SHARD_COUNT_MISMATCH', 'PARTIAL_PAIR_DUPLICATE']));
    expect(e.problems.find((p) => p.code === 'PARTIAL_PAIR_DUPLICATE')!.message).toContain(at('p3', '2'));
  });

  it('a partial measured with another decoder binary', async () => {
    // The same ffprobe with one byte appended: it still runs, and it is another binary by its SHA-256.
    const tools = await resolveFfmpeg();
    const other = at('ffprobe-other');
    copyFileSync(tools.ffprobe.path, other);
    appendFileSync(other, Buffer.from([0]));
    // Both binaries named: ffmpeg and ffprobe are always taken as a pair (docs/media.md).
    await shards(7, at('p7-decoder'), { ffmpeg: { ffmpegPath: tools.ffmpeg.path, ffprobePath: other } }, CANDS, [6]);
    const dir = set('decoder', [...[0, 1, 2, 3, 4, 5].map((k) => [`p7/${k}`, String(k)] as [string, string]), ['p7-decoder/6', '6']]);
    const e = await refused(mergeOf([dir], out()));
    expect(codes(e)).toEqual(['PARTIAL_DECODER_MISMATCH']);
    expect(e.problems[0]!.message).toContain(path.join(dir, '6'));
    expect(e.problems[0]!.message).toContain(path.join(dir, '0'));
  }, 300_000);

  it('a partial of other runs (the candidates in another order)', async () => {
    await shards(7, at('p7-foreign'), {}, [...CANDS].reverse(), [6]);
    const dir = set('foreign', [...[0, 1, 2, 3, 4, 5].map((k) => [`p7/${k}`, String(k)] as [string, string]), ['p7-foreign/6', '6']]);
    const e = await refused(mergeOf([dir], out()));
    expect(e.code).toBe('PARTIAL_FOREIGN_RUNS');
    expect(e.problems[0]!.message).toContain(path.join(dir, '6'));
  }, 300_000);

  it('a partial judged with another policy, or partials not judged with the policy given', async () => {
    const policy = { ...DEFAULT_POLICY, name: 'stricter', checks: DEFAULT_POLICY.checks.map((c) => (c.name === 'min_ssim' ? { ...c, threshold: 0.99 } : c)) };
    await shards(7, at('p7-policy'), { policy }, CANDS, [6]);
    const dir = set('policy', [...[0, 1, 2, 3, 4, 5].map((k) => [`p7/${k}`, String(k)] as [string, string]), ['p7-policy/6', '6']]);
    expect(codes(await refused(mergeOf([dir], out())))).toEqual(['PARTIAL_POLICY_MISMATCH']);
    expect(codes(await refused(mergeOf([at('p2')], out(), { policy })))).toEqual(['PARTIAL_POLICY_MISMATCH']);
  }, 300_000);

  it('a partial whose files changed after it was sealed', async () => {
    const dir = set('tampered', [['p2/0', '0'], ['p2/1', '1']]);
    const csv = Object.keys(snapshot(path.join(dir, '1'))).find((f) => f.endsWith('frames.csv'))!;
    appendFileSync(path.join(dir, '1', csv), '0\n');
    const e = await refused(mergeOf([dir], out()));
    expect(codes(e)).toEqual(['PARTIAL_SEAL']);
    expect(e.problems[0]!.message).toContain(csv);
  });

  it('a partial of another tool version, even when resealed', async () => {
    const dir = set('version', [['p2/0', '0'], ['p2/1', '1']]);
    const file = path.join(dir, '1', 'partial.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"version": "[^"]+"/, '"version": "0.0.1"'));
    reseal(path.join(dir, '1'));
    const e = await refused(mergeOf([dir], out()));
    expect(codes(e)).toEqual(['PARTIAL_TOOL_MISMATCH']);
    expect(e.problems[0]!.message).toContain(path.join(dir, '1'));
  });

  it('a folder that holds no partial, and an --out that would replace a partial', async () => {
    expect(codes(await refused(mergeOf([at('one')], out())))).toEqual(['PARTIAL_UNREADABLE']);
    // A copy of the shared partials: were --out not refused, merge would write into it.
    const p2 = set('p2-out', [['p2/0', '0'], ['p2/1', '1']]);
    expect((await refused(mergeOf([p2], p2))).code).toBe('OUT_INSIDE_INPUT');
    expect((await refused(mergeOf([path.join(p2, '0'), path.join(p2, '1')], p2))).code).toBe('OUT_CONTAINS_INPUT');
  });
});
