/**
 * A shard's partial is evidence from another machine: merge checks what it
 * can (ranges, per-frame lengths against the pair's frame count, aggregates
 * against the per-frame series, frames.csv against partial.json, the
 * compatibility facts against its own probe of the media, the policy, the
 * decoder, the files compare writes and their bytes) and re-measures what it
 * cannot (`remeasure`: one pair per partial by default, chosen at random),
 * requiring identical values. Each forgery below is a partial edited and
 * resealed, as someone with write access to the partials folder would.
 *
 * Runs: the committed H200 and B200 fixtures, ten pairs (c003 fails on SSIM
 * and PSNR, c004 and c005 on audio, c006 is a failed request, c007 has
 * frame counts 12 and 10, c008 lacks audio on one side).
 *
 * The one-machine bundle ('one') and the partials of 2 and 10 shards ('p2', 'p10') are the run's
 * shared data (test/shared/fixtures.ts): built once per test run, read here; every forgery edits a copy.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairFramesCsv } from '../../src/bundle/frames-csv.js';
import { compare } from '../../src/compare.js';
import { FidelityError } from '../../src/errors.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { summarizeSsim } from '../../src/metrics/series.js';
import { temporalOffsetOf } from '../../src/metrics/temporal-offset.js';
import type { PairMeasurement } from '../../src/schemas/measurement.js';
import { merge, type MergeOptions } from '../../src/shard/merge.js';
import { partialJsonText, ShardPartial as ShardPartialSchema, type ShardPartial } from '../../src/shard/schema.js';
import { reseal, sha256, snapshot } from '../../../../test/e2e/helpers.js';
import { fixtureBundle, fixturePartials, SHARED_EPOCH } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIX = path.join(ROOT, 'fixtures', 'runs');
const BASE = path.join(FIX, 'h200');
const CANDS = [path.join(FIX, 'b200')];
const B200 = '30061277519-2';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-evidence-'));
/** Shared data, read only: 'one', 'p2' and 'p10'. */
const shared = new Map<string, string>();
/** A path under this file's own folder, or under a shared entry when its first part names one. */
const at = (...p: string[]) => {
  const [first, ...rest] = p.join('/').split('/');
  const root = shared.get(first!);
  return root ? path.join(root, ...rest) : path.join(tmp, ...p);
};
const saved = process.env.SOURCE_DATE_EPOCH;
let n = 0;
const out = () => at(`out-${n++}`);

beforeAll(async () => {
  process.env.SOURCE_DATE_EPOCH = SHARED_EPOCH;
  // compare(BASE, CANDS, { threads: 2 }) and its partials of 2 and 10 shards (threads: 2) at SHARED_EPOCH.
  shared.set('one', (await fixtureBundle(['b200'])).dir);
  shared.set('p2', (await fixturePartials(['b200'], 2)).dir);
  shared.set('p10', (await fixturePartials(['b200'], 10)).dir);
}, 600_000);
afterAll(() => {
  if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = saved;
  rmSync(tmp, { recursive: true, force: true });
});

const mergeOf = (partials: string, extra: Partial<MergeOptions> = {}) => merge(BASE, CANDS, { partials: [partials], out: out(), threads: 2, ...extra });

async function refused(p: Promise<unknown>): Promise<FidelityError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'merged without a complaint').toBeInstanceOf(FidelityError);
  return error as FidelityError;
}
const codes = (e: FidelityError) => [...new Set(e.problems.map((p) => p.code))];
const said = (e: FidelityError) => e.problems.map((p) => p.message).join('\n');

/**
 * A copy of a set of partials (`from`, a folder of shard folders) in which
 * `edit` changes each shard's partial.json (and may change its files); every
 * shard is then resealed, as a forger would.
 */
function forge(from: string, edit: (k: number, doc: ShardPartial, dir: string) => void): string {
  const dest = at(`forged-${n++}`);
  cpSync(at(from), dest, { recursive: true });
  for (const k of readdirSync(dest)) {
    const dir = path.join(dest, k);
    const file = path.join(dir, 'partial.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ShardPartial;
    edit(Number(k), doc, dir);
    writeFileSync(file, partialJsonText(doc));
    reseal(dir);
  }
  return dest;
}

const pairOf = (doc: ShardPartial, index: number) => doc.pairs.find((p) => p.index === index)!;
const measurementOf = (doc: ShardPartial, index: number): PairMeasurement => {
  const outcome = pairOf(doc, index).outcome!;
  if (!outcome.ok) throw new Error(`pair ${index} has no measurement`);
  return outcome.measurement;
};
/** Rewrites the pair's frames.csv from its (forged) measurement, so the CSV agrees with partial.json. */
function rewriteCsv(doc: ShardPartial, dir: string, index: number): void {
  writeFileSync(path.join(dir, pairOf(doc, index).files.frames_csv!), pairFramesCsv(measurementOf(doc, index).video));
}
const slot = (c: number) => `${B200}/measurement-r000-c${String(c).padStart(3, '0')}`;

/** A copy of a run whose plan.json says 1344x768 while its media stay 112x64 (plan_sha256 and the seal made to match). */
function offPlan(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  const plan = JSON.parse(readFileSync(path.join(to, 'plan.json'), 'utf8'));
  plan.video = { ...plan.video, width: 1344, height: 768 };
  const bytes = Buffer.from(`${JSON.stringify(plan, null, 2)}\n`);
  writeFileSync(path.join(to, 'plan.json'), bytes);
  const run = JSON.parse(readFileSync(path.join(to, 'run.json'), 'utf8'));
  run.plan_sha256 = sha256(bytes);
  writeFileSync(path.join(to, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
  reseal(to);
  return to;
}

describe('merge checks what it can', () => {
  it('a failing pair given SSIM 1 in its summary only: its aggregates contradict its per-frame series', async () => {
    const set = forge('p2', (k, doc, dir) => {
      if (k !== 1) return;
      const ssim = measurementOf(doc, 3).video.ssim!;
      ssim.min = 1;
      ssim.mean = 1;
      rewriteCsv(doc, dir, 3);
    });
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_INVALID']);
    expect(said(e)).toContain(slot(3));
    expect(said(e)).toMatch(/video\.ssim\.min/);
  });

  it('out-of-range values (SSIM 7.5, PSNR 1e308, MAE −3) are PARTIAL_MEASUREMENT_INVALID', async () => {
    const edits: ((m: PairMeasurement) => void)[] = [
      (m) => {
        const frames = [...m.video.ssim!.per_frame];
        frames[0] = 7.5;
        m.video.ssim = summarizeSsim(frames);
      },
      (m) => void (m.video.psnr_db = 1e308),
      (m) => void (m.video.mae = -3),
    ];
    for (const edit of edits) {
      const set = forge('p2', (k, doc, dir) => {
        if (k !== 1) return;
        edit(measurementOf(doc, 1));
        rewriteCsv(doc, dir, 1);
      });
      const e = await refused(mergeOf(set));
      expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_INVALID']);
      expect(said(e)).toContain(slot(1));
    }
  });

  it('a 3,000,000-value per-frame series for a 12-frame clip is PARTIAL_MEASUREMENT_INVALID', async () => {
    const set = forge('p2', (k, doc) => {
      if (k !== 1) return;
      measurementOf(doc, 1).video.ssim = summarizeSsim(new Array<number>(3_000_000).fill(0.99));
    });
    const o = out();
    const e = await refused(merge(BASE, CANDS, { partials: [set], out: o, threads: 2 }));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_INVALID']);
    expect(said(e)).toMatch(/3000000 values; the pair has 12 frames/);
    expect(existsSync(o)).toBe(false);
  });

  it('a frames.csv that disagrees with partial.json is PARTIAL_MEASUREMENT_INVALID', async () => {
    const set = forge('p2', (k, doc, dir) => {
      if (k !== 1) return;
      const csv = path.join(dir, pairOf(doc, 1).files.frames_csv!);
      const lines = readFileSync(csv, 'utf8').split('\n');
      lines[3] = lines[3]!.replace(/,0\.\d/, ',1.0');
      writeFileSync(csv, lines.join('\n'));
    });
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_INVALID']);
    expect(said(e)).toMatch(/frames\.csv/);
  });

  it("a pair off the plan (MEDIA_PLAN_MISMATCH, then INCOMPATIBLE_FRAME_COUNT) given another pair's measurement and files: merge's own probe of the media refuses it", async () => {
    const set = forge('p2', (k, doc, dir) => {
      if (k !== 1) return;
      const from = pairOf(doc, 1);
      const to = pairOf(doc, 7);
      to.outcome = structuredClone(from.outcome);
      to.files = Object.fromEntries(Object.entries(from.files).map(([key, f]) => [key, f.replace('c001', 'c007')]));
      for (const [key, f] of Object.entries(from.files)) {
        mkdirSync(path.dirname(path.join(dir, to.files[key]!)), { recursive: true });
        copyFileSync(path.join(dir, f), path.join(dir, to.files[key]!));
      }
    });
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_MISMATCH']);
    expect(said(e)).toContain(slot(7));
    expect(said(e)).toMatch(/MEDIA_PLAN_MISMATCH/);
  });

  it("a forged temporal offset diagnosis (another choice, an SSIM of 3, offset 0 off the ssim_ffmpeg series): its per-frame values contradict it", async () => {
    const edits: [(m: PairMeasurement) => void, RegExp][] = [
      [(m) => void (m.video.temporal_offset!.frames = 1), /video\.temporal_offset\.frames is 1, but its per-frame values give 0/],
      [(m) => void (m.video.temporal_offset!.searched.ssim_by_frame[0]![0] = 3), /ssim_by_frame holds 3, which is not an SSIM/],
      [(m) => void (m.video.temporal_offset!.searched.sampled_frames = [0, 1, 2]), /sampled_frames is \[0,1,2\]; 12 frames sample/],
      [(m) => void delete m.video.temporal_offset, /temporal_offset is missing, though the video differs/],
      // Offset 0 moved by 1e-3 with the means and the choice re-derived to match: only the ssim_ffmpeg Y series contradicts it.
      [
        (m) => {
          const t = m.video.temporal_offset!.searched;
          const zero = t.offsets.indexOf(0);
          m.video.temporal_offset = temporalOffsetOf(t.offsets, t.sampled_frames, t.ssim_by_frame.map((r, i) => r.map((x, j) => (i === 0 && j === zero ? x - 1e-3 : x))));
        },
        /at offset 0 is .*, but video\.ssim_ffmpeg\.y\.per_frame has .* \(more than \d\.\d+e-\d apart\)/,
      ],
    ];
    for (const [edit, why] of edits) {
      const set = forge('p2', (k, doc) => {
        if (k === 1) edit(measurementOf(doc, 1));
      });
      const e = await refused(mergeOf(set));
      expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_INVALID']);
      expect(said(e)).toContain(slot(1));
      expect(said(e)).toMatch(why);
    }
  });

  it("a measurement of media that break the plan (another pair's, files and all): merge's own probe finds MEDIA_PLAN_MISMATCH", async () => {
    // The same runs and media, under a plan that says 1344x768: every ok pair breaks it, on both sides.
    const runs = [BASE, ...CANDS].map((dir) => offPlan(dir, at('off-plan', path.basename(dir))));
    for (let k = 0; k < 2; k++) await compare(runs[0]!, runs.slice(1), { out: at('off-plan-p2', String(k)), shard: { index: k, count: 2 }, threads: 2 });
    const honest = ShardPartialSchema.parse(JSON.parse(readFileSync(at('off-plan-p2', '1', 'partial.json'), 'utf8')));
    expect(pairOf(honest, 1).outcome).toMatchObject({ ok: false, failure: { code: 'MEDIA_PLAN_MISMATCH', side: 'both' } });
    // Shard 1 claims pair 1's measurement from the runs whose plan the media meet.
    const dest = at('off-plan-forged');
    cpSync(at('off-plan-p2'), dest, { recursive: true });
    const dir = path.join(dest, '1');
    const doc = JSON.parse(readFileSync(path.join(dir, 'partial.json'), 'utf8')) as ShardPartial;
    const real = JSON.parse(readFileSync(at('p2', '1', 'partial.json'), 'utf8')) as ShardPartial;
    pairOf(doc, 1).outcome = structuredClone(pairOf(real, 1).outcome);
    pairOf(doc, 1).files = { ...pairOf(real, 1).files };
    for (const f of Object.values(pairOf(real, 1).files)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      copyFileSync(at('p2', '1', f), path.join(dir, f));
    }
    writeFileSync(path.join(dir, 'partial.json'), partialJsonText(doc));
    reseal(dir);
    const e = await refused(merge(runs[0]!, runs.slice(1), { partials: [dest], out: out(), threads: 2 }));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_MISMATCH']);
    expect(said(e)).toContain(slot(1));
    expect(said(e)).toMatch(/the partial has a measurement, but merge's probe of the media finds MEDIA_PLAN_MISMATCH/);
    // The honest partials merge, every compatible pair invalid for the plan.
    await merge(runs[0]!, runs.slice(1), { partials: [at('off-plan-p2')], out: at('off-plan-merged'), threads: 2 });
    const report = JSON.parse(readFileSync(at('off-plan-merged', 'report.json'), 'utf8')) as { comparisons: { summary: { valid_pairs: number }; pairs: { reasons: string[] }[] }[] };
    expect(report.comparisons[0]!.summary.valid_pairs).toBe(0);
    expect(report.comparisons[0]!.pairs.map((p) => p.reasons[0])).toEqual([
      'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH',
      'FAILED_CANDIDATE', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH',
    ]);
  });

  it('thresholds loosened in every partial, the policy name kept: PARTIAL_POLICY_MISMATCH (merge takes its own policy or the default)', async () => {
    const set = forge('p2', (_k, doc) => {
      doc.policy.checks = doc.policy.checks.map((c) => ({ ...c, threshold: c.comparator === '>=' ? -1 : 1e9 }));
    });
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_POLICY_MISMATCH']);
    expect(said(e)).toMatch(/default/);
  });

  it("a forged decoder identity in every partial: PARTIAL_DECODER_MISMATCH against merge's own ffmpeg", async () => {
    const set = forge('p2', (_k, doc) => {
      doc.decoder = { ...doc.decoder, ffmpeg_version: 'ffmpeg version 99 (a forged build)', sha256: 'f'.repeat(64) };
    });
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_DECODER_MISMATCH']);
    expect(said(e)).toMatch(/this merge/);
  });
});

/**
 * merge of the honest p2 partials, by default (one pair per partial re-measured) and with remeasure 'all':
 * made once, by whichever test asks first, and read by the tests that assert on them.
 */
const honest: Partial<Record<'default' | 'all', Promise<{ out: string; result: Awaited<ReturnType<typeof merge>> }>>> = {};
function mergedP2(remeasure: 'default' | 'all') {
  return (honest[remeasure] ??= (async () => {
    const o = out();
    const result = await merge(BASE, CANDS, { partials: [at('p2')], out: o, threads: 2, ...(remeasure === 'all' ? { remeasure: 'all' as const } : {}) });
    return { out: o, result };
  })());
}

describe('merge re-measures what it cannot check', () => {
  /** c003 (SSIM 0.44, PSNR 22 dB: fails) forged whole: a series of 1, aggregates from it, PSNR 40, a matching frames.csv. */
  const passing = (k: number, doc: ShardPartial, dir: string, shard: number) => {
    if (k !== shard) return;
    const m = measurementOf(doc, 3);
    m.video.ssim = summarizeSsim(new Array<number>(m.video.frames).fill(1));
    m.video.psnr_db = 40;
    // InferenceX's figures repeat the pooled PSNR: forged with it, or merge's own check of them refuses first.
    if (m.inferencex) m.inferencex.metrics.video_psnr_db = 40;
    // The temporal offset diagnosis is left as measured: it is FFmpeg's SSIM, not the `ssim` series, so it agrees with nothing forged here.
    rewriteCsv(doc, dir, 3);
  };

  it('a failing pair forged consistently is caught when merge re-measures it: PARTIAL_MEASUREMENT_MISMATCH naming the shard and the pair', async () => {
    const set = forge('p2', (k, doc, dir) => passing(k, doc, dir, 1));
    const e = await refused(mergeOf(set, { remeasure: 'all' }));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_MISMATCH']);
    expect(said(e)).toContain('shard 1/2');
    expect(said(e)).toContain(slot(3));
    expect(said(e)).toMatch(/video\.ssim\.min/);
  });

  it('by default one pair per partial is re-measured: with one pair per shard, every forgery is caught', async () => {
    const set = forge('p10', (k, doc, dir) => passing(k, doc, dir, 3));
    const e = await refused(mergeOf(set));
    expect(codes(e)).toEqual(['PARTIAL_MEASUREMENT_MISMATCH']);
    expect(said(e)).toContain('shard 3/10');
  });

  it('report.json and both pages say how many pairs merge re-measured', async () => {
    const { out: o, result } = await mergedP2('default');
    // Nine pairs were measured (c006 is a failed request); one per partial was measured again.
    expect(result.report.measurement_origin).toEqual({ pairs: 9, measured_here: 2, taken_from_shards: 7 });
    expect(JSON.parse(readFileSync(path.join(o, 'report.json'), 'utf8')).measurement_origin).toEqual({ pairs: 9, measured_here: 2, taken_from_shards: 7 });
    expect(readFileSync(path.join(o, 'index.html'), 'utf8')).toContain('2 of 9 re-measured by merge; the rest taken from shards: their values checked against themselves and the media, failure messages as the shards wrote them.');
    expect(readFileSync(path.join(o, 'index.zh.html'), 'utf8')).toContain('合并时重新测量了 9 对中的 2 对；其余取自分片：数值已与自身及媒体核对，失败信息沿用分片所写。');
    const { result: all } = await mergedP2('all');
    expect(all.report.measurement_origin).toEqual({ pairs: 9, measured_here: 9, taken_from_shards: 0 });
    const one = JSON.parse(readFileSync(at('one', 'report.json'), 'utf8'));
    expect(one.measurement_origin).toEqual({ pairs: 9, measured_here: 9, taken_from_shards: 0 });
    expect(readFileSync(at('one', 'index.html'), 'utf8')).toContain('All 9 measured pairs were measured by the command that wrote this bundle');
  }, 120_000);

  it('with --remeasure all the bundle is byte for byte compare\'s; by default it differs only in the re-measured count, and is the same bytes every time', async () => {
    const { out: all } = await mergedP2('all');
    expect(snapshot(all)).toEqual(snapshot(at('one')));
    // a: the default merge (also read by the test above); b: the same merge again, here.
    const { out: a } = await mergedP2('default');
    const b = out();
    await merge(BASE, CANDS, { partials: [at('p2')], out: b, threads: 2 });
    expect(snapshot(b)).toEqual(snapshot(a));
    const one = snapshot(at('one'));
    const differing = Object.keys(one).filter((f) => snapshot(a)[f] !== one[f]);
    expect(differing.sort()).toEqual(['SHA256SUMS', 'index.html', 'index.zh.html', 'report.json']);
    const strip = (dir: string) => ({ ...JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')), measurement_origin: null });
    expect(strip(a)).toEqual(strip(at('one')));
  }, 180_000);

  it("a failure's message forged (code and side kept): a re-measured pair takes merge's own text, so --remeasure all is compare's report; an unmeasured one carries it, as the pages say", async () => {
    const forged = "The candidate's media differ from the plan: frames 10 (plan 12). Ignore this pair: approved by QA";
    const set = forge('p2', (_k, doc) => {
      const pair = doc.pairs.find((x) => x.index === 7);
      if (pair?.outcome && !pair.outcome.ok) pair.outcome.failure.message = forged;
    });
    expect(readFileSync(path.join(set, '1', 'partial.json'), 'utf8') + readFileSync(path.join(set, '0', 'partial.json'), 'utf8')).toContain(forged);
    const messageOf = (dir: string): string => {
      const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'));
      return report.comparisons[0].pairs.find((p: { slot_id: string }) => p.slot_id === 'measurement-r000-c007').reason_details[0].message;
    };
    const all = out();
    await merge(BASE, CANDS, { partials: [set], out: all, threads: 2, remeasure: 'all' });
    expect(messageOf(all)).toBe("The candidate's media differ from the plan: frames 10 (plan 12)");
    expect(readFileSync(path.join(all, 'report.json'))).toEqual(readFileSync(at('one', 'report.json')));
    // Not re-measured: the code and side are checked against merge's probe, the words are the shard's, and the pages say so.
    const none = out();
    await merge(BASE, CANDS, { partials: [set], out: none, threads: 2, remeasure: 0 });
    expect(messageOf(none)).toBe(forged);
    expect(readFileSync(path.join(none, 'index.html'), 'utf8')).toContain("failure messages as the shards wrote them");
  }, 180_000);

  it('remeasure is a whole number of pairs per partial, or all', async () => {
    for (const bad of [-1, 1.5, 'some', Number.NaN]) {
      const e = await refused(mergeOf(at('p2'), { remeasure: bad as never }));
      expect(e.code, String(bad)).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('only the files compare writes', () => {
  it('a files key naming a sealed page (.html, .svg), another file name or another type: PARTIAL_PAIRS_MISMATCH', async () => {
    const page = readFileSync(at('one', 'index.html'));
    const forgeries: ((doc: ShardPartial, dir: string) => void)[] = [
      (doc, dir) => {
        const p = pairOf(doc, 1);
        p.files.report_html = p.files.frames_csv!.replace('frames.csv', 'report.html');
        writeFileSync(path.join(dir, p.files.report_html), page);
      },
      (doc, dir) => {
        const p = pairOf(doc, 1);
        const svg = p.files.ssim_heatmap_png!.replace('.png', '.svg');
        writeFileSync(path.join(dir, svg), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
        rmSync(path.join(dir, p.files.ssim_heatmap_png!));
        p.files.ssim_heatmap_png = svg;
      },
      (doc, dir) => {
        const p = pairOf(doc, 1);
        const renamed = p.files.frames_csv!.replace('frames.csv', 'frames.txt');
        cpSync(path.join(dir, p.files.frames_csv!), path.join(dir, renamed));
        rmSync(path.join(dir, p.files.frames_csv!));
        p.files.frames_csv = renamed;
      },
    ];
    for (const f of forgeries) {
      const set = forge('p2', (k, doc, dir) => k === 1 && f(doc, dir));
      const e = await refused(mergeOf(set));
      expect(codes(e)).toContain('PARTIAL_PAIRS_MISMATCH');
      expect(said(e)).toContain(slot(1));
    }
  });

  it('copied files must be what their names say: PNG bytes in a .webp, text in a .flac, a NUL in a .csv', async () => {
    const forgeries: [number, (doc: ShardPartial, dir: string) => void][] = [
      [1, (doc, dir) => copyFileSync(path.join(dir, pairOf(doc, 1).files.ssim_heatmap_png!), path.join(dir, pairOf(doc, 1).files.baseline_worst_webp!))],
      [0, (doc, dir) => {
        const p = pairOf(doc, 4);
        const flac = p.files.audio_diff_flac ?? p.files.audio_diff_normalized_flac!;
        writeFileSync(path.join(dir, flac), 'fLaC, but not really');
      }],
      [1, (doc, dir) => writeFileSync(path.join(dir, pairOf(doc, 1).files.frames_csv!), Buffer.from('frame,ssim\n0,\u00000.99\n'))],
    ];
    for (const [shard, f] of forgeries) {
      const set = forge('p2', (k, doc, dir) => k === shard && f(doc, dir));
      const e = await refused(mergeOf(set));
      expect(codes(e)).toContain('PARTIAL_PAIRS_MISMATCH');
    }
  });

  it('a FLAC of another encoder (ffmpeg\'s) is a FLAC: the container is checked, not our encoder\'s bytes', async () => {
    const tools = await resolveFfmpeg();
    const other = at('ffmpeg.flac');
    execFileSync(tools.ffmpeg.path, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=32000:duration=0.2', '-ac', '2', '-c:a', 'flac', other]);
    const set = forge('p2', (k, doc, dir) => {
      if (k !== 0) return;
      const p = pairOf(doc, 4);
      copyFileSync(other, path.join(dir, p.files.audio_diff_flac ?? p.files.audio_diff_normalized_flac!));
    });
    // Files are checked before any pair is re-measured, and re-measuring compares values, never files:
    // nothing re-measured (remeasure 0), the merge accepts the FLAC or refuses it all the same.
    await mergeOf(set, { remeasure: 0 });
  });
});

describe("a partial's own files", () => {
  it('a symbolic link as SHA256SUMS is PARTIAL_SEAL; a key given twice in partial.json is PARTIAL_UNREADABLE', async () => {
    const linked = forge('p2', () => undefined);
    const seal = path.join(linked, '1', 'SHA256SUMS');
    copyFileSync(seal, at('seal-copy'));
    rmSync(seal);
    symlinkSync(at('seal-copy'), seal);
    const e = await refused(mergeOf(linked));
    expect(codes(e)).toEqual(['PARTIAL_SEAL']);
    expect(said(e)).toMatch(/symbolic link/);

    const twice = forge('p2', () => undefined);
    const file = path.join(twice, '1', 'partial.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"pairs_total":', '"pairs_total": 99, "pairs_total":'));
    reseal(path.join(twice, '1'));
    const d = await refused(mergeOf(twice));
    expect(codes(d)).toEqual(['PARTIAL_UNREADABLE']);
    expect(said(d)).toMatch(/appears twice/);
  });
});
