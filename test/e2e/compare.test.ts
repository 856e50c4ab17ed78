/**
 * End to end on the committed fixtures, through the real CLI binary: one
 * compare of H200 against B200 and H100 (plus a repeat, and a zip-candidate
 * run) in beforeAll, then many assertions on the bundles. Expected outcomes
 * are those of fixtures/README.md, cross-checked with the generator's manifest.
 *
 * The --json compare is the run's shared one (test/shared/fixtures.ts, fixtureCliCompare): the
 * diff test reads the same command's bundle, JUnit file and summary, so it runs once for both.
 * Its --threads 2, --junit and job summary leave the bundle and the --json document as they would
 * be without them (the diff test checks the first; the repeat here, at the default thread count,
 * must still be byte for byte the same).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonText } from '../../packages/fidelity/src/bundle/json-text.js';
import { Report, type PairReport } from '../../packages/fidelity/src/schemas/report.js';
import { fixtureCliCompare, SHARED_EPOCH } from '../shared/fixtures.js';
import { cli, FIXTURES, reseal, sha256, snapshot, zipRun, type CliResult } from './helpers.js';

type Expected = { status: 'passed' | 'failed' | 'invalid'; failed?: string[]; reasons?: string[] };
const PASS: Expected = { status: 'passed' };

/** fixtures/README.md, by case id; cases not listed are byte-identical copies of the baseline. */
const EXPECTED: Record<string, Record<string, Expected>> = {
  B200: {
    'spoken-greeting-s29': PASS, // light noise
    'night-market-s11': PASS, // slight blur
    'night-market-s29': { status: 'failed', failed: ['min_ssim', 'video_psnr_db'] }, // heavy noise
    'cafe-duet-s11': { status: 'failed', failed: ['rms_ratio_deviation'] }, // gain 0.8
    'cafe-duet-s29': { status: 'failed', failed: ['spectral_cosine', 'rms_ratio_deviation'] }, // right channel silenced
    'caption-markup-s11': { status: 'invalid', reasons: ['FAILED_CANDIDATE'] }, // request failed
    'caption-markup-s29': { status: 'invalid', reasons: ['MEDIA_PLAN_MISMATCH', 'INCOMPATIBLE_FRAME_COUNT'] }, // shorter stream: off the plan first
    'ocean-waves-s11': { status: 'invalid', reasons: ['MEDIA_PLAN_MISMATCH', 'INCOMPATIBLE_AUDIO_PRESENCE'] }, // no audio track: off the plan first
  },
  H100: {
    'spoken-greeting-s29': PASS, // slight blur
    'ocean-waves-s29': { status: 'failed', failed: ['rms_ratio_deviation'] }, // gain 0.8
  },
};
const expectedFor = (site: string, caseId: string): Expected => EXPECTED[site]?.[caseId] ?? PASS;

const EPOCH = { SOURCE_DATE_EPOCH: SHARED_EPOCH };
const run = (site: string) => path.join(FIXTURES, site);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-e2e-'));
let A: string; // --json, fixed epoch: the shared run's bundle (read only)
const B = path.join(tmp, 'b'); // same inputs and epoch, human output
const C = path.join(tmp, 'c'); // B200 as a zip, no epoch, --fail-on-threshold --progress
let a: CliResult;
let b: CliResult;
let c: CliResult;
let report: Report;

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const comparison = (gpu: string) => report.comparisons.find((x) => x.candidate_gpu_model === gpu)!;

beforeAll(async () => {
  const shared = (await fixtureCliCompare()).meta;
  A = shared.bundle;
  a = { code: shared.code, stdout: shared.stdout, stderr: shared.stderr };
  b = await cli(['compare', run('h200'), run('b200'), run('h100'), '--out', B], { env: EPOCH });
  await zipRun(run('b200'), path.join(tmp, 'b200.zip'), 'h3-video-b200');
  c = await cli(['compare', run('h200'), path.join(tmp, 'b200.zip'), run('h100'), '--out', C, '--fail-on-threshold', '--progress']);
  if (a.code === 0) report = Report.parse(readJson(path.join(A, 'report.json')));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare on the committed fixtures', () => {
  it('writes the bundle (exit 0) and prints exactly one JSON document on stdout with --json', () => {
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const doc = JSON.parse(a.stdout) as { ok: boolean; index: string; threshold_failures: number; comparisons: unknown[] };
    expect(doc.ok).toBe(true);
    expect(doc.index).toBe(path.join(A, 'index.html'));
    expect(doc.comparisons).toHaveLength(2);
    expect(doc.threshold_failures).toBe(4);
  });

  it('prints a short human summary, the warning and where index.html is', () => {
    expect(b.code).toBe(0);
    expect(b.stderr).toBe('');
    expect(b.stdout).toMatch(/H200 \(run \d+-\d+\) vs B200 \(run \d+-\d+\): planned 10, valid 7, passed 4, failed 3, invalid 3/);
    expect(b.stdout).toMatch(/H200 \(run \d+-\d+\) vs H100 \(run \d+-\d+\): planned 10, valid 10, passed 9, failed 1, invalid 0/);
    expect(b.stdout).toContain('not a quality or release verdict');
    expect(b.stdout).toContain(`Bundle: ${path.join(B, 'index.html')}`);
    expect(b.stdout).toMatch(/invalid +measurement-r000-c006 caption-markup-s11: FAILED_CANDIDATE: request timed out/);
  });

  it('agrees with the generator manifest on every expected outcome', () => {
    const manifest = readJson(path.join(FIXTURES, 'synth-manifest.json')) as { slots: { site: string; case_id: string; expected: string }[] };
    const word = { pass: 'passed', fail: 'failed', invalid: 'invalid' } as Record<string, string>;
    for (const slot of manifest.slots) expect([slot.site, slot.case_id, expectedFor(slot.site, slot.case_id).status]).toEqual([slot.site, slot.case_id, word[slot.expected]]);
  });

  it('counts pairs so that they always add up', () => {
    expect(report.schema_version).toBe(1);
    expect(report.comparisons.map((x) => [x.baseline_gpu_model, x.candidate_gpu_model, x.summary])).toEqual([
      ['H200', 'B200', { planned: 10, valid_pairs: 7, passed: 4, failed: 3, invalid: 3 }],
      ['H200', 'H100', { planned: 10, valid_pairs: 10, passed: 9, failed: 1, invalid: 0 }],
    ]);
  });

  it('gives every pair its documented outcome, failed checks and reasons', () => {
    for (const cmp of report.comparisons) {
      for (const pair of cmp.pairs) {
        const want = expectedFor(cmp.candidate_gpu_model, pair.case_id);
        const label = `${cmp.candidate_gpu_model} ${pair.slot_id} ${pair.case_id}`;
        expect([label, pair.status], label).toEqual([label, want.status]);
        expect(pair.checks.filter((k) => k.outcome === 'fail').map((k) => k.name).sort(), label).toEqual([...(want.failed ?? [])].sort());
        // A failed pair's reasons are its failed checks' codes, in the policy's order (docs/reason-codes.md).
        const failedCodes = pair.checks.filter((k) => k.outcome === 'fail').map((k) => `CHECK_FAILED_${k.name.toUpperCase()}`);
        expect(pair.reasons, label).toEqual(want.reasons ?? failedCodes);
      }
    }
  });

  it('keeps an invalid pair whole: error text, no metrics, every check inconclusive', () => {
    const failed = comparison('B200').pairs.find((p) => p.case_id === 'caption-markup-s11')!;
    expect(failed.candidate_status).toBe('failed');
    expect(failed.candidate_error).toMatch(/timed out/);
    expect(failed.reason_details[0]).toMatchObject({ code: 'FAILED_CANDIDATE', side: 'candidate' });
    expect(failed.candidate_media).toBeNull();
    expect(failed.baseline_media).toMatch(/^media\/[0-9a-f]{64}\.mp4$/);
    for (const p of comparison('B200').pairs.filter((x) => x.status === 'invalid')) {
      expect(p.video).toBeNull();
      expect(p.audio).toBeNull();
      expect(p.checks.map((k) => k.outcome)).toEqual(['inconclusive', 'inconclusive', 'inconclusive', 'inconclusive']);
    }
  });

  it('passes identical video with PSNR null and the note "identical"', () => {
    const same = comparison('H100').pairs.find((p) => p.case_id === 'spoken-greeting-s11')!;
    expect(same.video?.identical).toBe(true);
    expect(same.video?.psnr_db).toBeNull();
    expect(same.checks.find((k) => k.name === 'video_psnr_db')).toMatchObject({ outcome: 'pass', value: null, note: 'identical' });
  });

  it('gives a bit-identical pair one still and no difference pictures, a differing pair WebP stills and a heat map', () => {
    const same = comparison('H100').pairs.find((p) => p.case_id === 'spoken-greeting-s11')!;
    const still = same.files.baseline_worst_webp!;
    expect(still).toMatch(/\/worst\.webp$/);
    expect(same.files.candidate_worst_webp).toBe(still);
    expect(Object.keys(same.files).filter((k) => k === 'abs_diff_webp' || k === 'ssim_heatmap_png')).toEqual([]);
    expect(readdirSync(path.join(A, path.dirname(still))).filter((f) => /\.(webp|png)$/.test(f))).toEqual(['worst.webp']);
    const differing = report.comparisons.flatMap((c) => c.pairs).find((p) => p.video && !p.video.identical && p.status !== 'invalid')!;
    for (const key of ['baseline_worst_webp', 'candidate_worst_webp', 'abs_diff_webp', 'ssim_heatmap_png']) {
      const file = differing.files[key];
      expect(file, key).toBeDefined();
      const head = readFileSync(path.join(A, file!)).subarray(0, 12);
      // RIFF....WEBP, or the PNG signature for the heat map.
      expect(key.endsWith('_webp') ? head.toString('latin1', 0, 4) + head.toString('latin1', 8, 12) : head.subarray(1, 4).toString('latin1'), key).toBe(key.endsWith('_webp') ? 'RIFFWEBP' : 'PNG');
    }
    // At most one difference audio file per pair, a FLAC; the fixtures' audio-gain pairs have one.
    expect(report.comparisons.flatMap((c) => c.pairs).filter((p) => p.files.audio_diff_normalized_flac ?? p.files.audio_diff_flac).length).toBeGreaterThan(0);
    for (const p of report.comparisons.flatMap((c) => c.pairs)) {
      const diffs = Object.keys(p.files).filter((k) => k.startsWith('audio_diff'));
      expect(diffs.length).toBeLessThanOrEqual(1);
      for (const k of diffs) expect([k, readFileSync(path.join(A, p.files[k]!)).toString('latin1', 0, 4)]).toEqual([k, 'fLaC']);
    }
  });

  it('stores each distinct MP4 once, byte-identical, named by its sha256', () => {
    const referenced = new Set<string>();
    let references = 0;
    for (const p of report.comparisons.flatMap((x) => x.pairs)) {
      for (const m of [p.baseline_media, p.candidate_media]) {
        if (m === null) continue;
        references++;
        referenced.add(m);
      }
    }
    const stored = readdirSync(path.join(A, 'media')).map((f) => `media/${f}`).sort();
    expect(stored).toEqual([...referenced].sort());
    expect(stored.length).toBeLessThan(references);
    for (const m of stored) expect(`media/${sha256(readFileSync(path.join(A, m)))}.mp4`).toBe(m);
    // An identical candidate is the baseline file itself, on both candidates.
    const base = comparison('B200').pairs[0]!;
    expect(base.candidate_media).toBe(base.baseline_media);
    expect(comparison('H100').pairs[0]!.candidate_media).toBe(base.baseline_media);
    // Every fixture MP4 that was paired is there, byte for byte.
    const fixtureMp4 = readFileSync(path.join(FIXTURES, 'b200', 'media', 'measurement-r000-c003.mp4'));
    expect(readFileSync(path.join(A, comparison('B200').pairs[3]!.candidate_media!)).equals(fixtureMp4)).toBe(true);
  });

  it('copies each run\'s metadata byte for byte into sources/, and never a whole archive', () => {
    for (const [site, r] of [['h200', report.runs[0]!], ['b200', report.runs[1]!], ['h100', report.runs[2]!]] as const) {
      expect(r.source).toEqual({ name: site, kind: 'directory' });
      for (const [mine, theirs] of [['ci.json', 'ci.json'], ['plan.json', 'plan.json'], ['run.json', 'run.json'], ['original-SHA256SUMS', 'SHA256SUMS']] as const) {
        expect(readFileSync(path.join(A, r.sources_dir, mine)).equals(readFileSync(path.join(FIXTURES, site, theirs))), `${site} ${mine}`).toBe(true);
      }
    }
    const files = Object.keys(snapshot(A));
    expect(files.filter((f) => /\.(zip|tar\.gz|tgz)$/.test(f) || f.includes('telemetry/') || f.includes('warmup'))).toEqual([]);
  });

  it('writes report.json deterministically: objects indented, arrays of numbers on one line, trailing newline, no machine paths', () => {
    const text = readFileSync(path.join(A, 'report.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toBe(jsonText(JSON.parse(text)));
    const pair = report.comparisons[0]!.pairs.find((p) => p.video?.ssim)!;
    expect(text).toContain(`"per_frame": [${pair.video!.ssim!.per_frame.map((v) => JSON.stringify(v)).join(',')}]`);
    for (const p of [tmp, FIXTURES, os.tmpdir(), os.homedir()]) expect(text).not.toContain(p);
    expect(report.generated_at).toBe('2025-11-29T21:00:00.000Z');
    expect(report.policy.calibration_status).toBe('uncalibrated');
    expect(report.disclaimer).toContain('not a quality or release verdict');
    expect(report.decoder.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Power, accounting and timing are covered in evidence.test.ts; the fixtures' telemetry says valid, valid, gapped.
    expect(report.runs.map((r) => r.power?.power_valid)).toEqual([true, true, false]);
    const schema = readJson(path.join(A, 'report.schema.json')) as { $schema: string; properties: Record<string, unknown> };
    expect(schema.$schema).toMatch(/json-schema/);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['schema_version', 'runs', 'comparisons', 'policy']));
  });

  it('writes per-frame CSV for every measured pair', () => {
    const pair = comparison('B200').pairs.find((p) => p.case_id === 'night-market-s29')! as PairReport;
    const csv = readFileSync(path.join(A, pair.files.frames_csv!), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('frame,ssim,ssim_ffmpeg_y,ssim_ffmpeg_u,ssim_ffmpeg_v,ssim_ffmpeg_all,psnr_y');
    expect(csv).toHaveLength(1 + pair.video!.frames);
    expect(Number(csv[1]!.split(',')[1])).toBe(pair.video!.ssim!.per_frame[0]);
    // No comparison-wide copy: the pairs' files and report.json hold every frame already.
    expect(comparison('B200').files?.frames_csv).toBeUndefined();
  });

  it('says on both pages that example thresholds are not a verdict', () => {
    expect(readFileSync(path.join(A, 'index.html'), 'utf8')).toMatch(/not a quality or release verdict/i);
    expect(existsSync(path.join(A, 'index.zh.html'))).toBe(true);
  });

  it('gives the same bytes for the same inputs, and differs only in the timestamped files otherwise', () => {
    expect(snapshot(B)).toEqual(snapshot(A));
    const sums = (dir: string) => Object.fromEntries(readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => [l.slice(66), l.slice(0, 64)]));
    const sa = sums(A);
    const sc = sums(C);
    expect(Object.keys(sc)).toEqual(Object.keys(sa));
    const differing = Object.keys(sa).filter((k) => sa[k] !== sc[k]);
    expect(differing.every((k) => ['report.json', 'index.html', 'index.zh.html'].includes(k))).toBe(true);
    const rc = Report.parse(readJson(path.join(C, 'report.json')));
    expect(rc.generated_at).not.toBe(report.generated_at);
    // Timestamp and the zip's own identity aside, the report is the same.
    const strip = (r: Report) => ({ ...r, generated_at: '', runs: r.runs.map((x) => ({ ...x, source: null, digest: null })) });
    expect(strip(rc)).toEqual(strip(report));
  });
});

describe('a zip candidate', () => {
  it('is verified and compared like the folder, and --fail-on-threshold gives 4', () => {
    expect(c.code).toBe(4);
    const rc = Report.parse(readJson(path.join(C, 'report.json')));
    expect(rc.runs[1]!.source).toEqual({ name: 'b200.zip', kind: 'zip' });
    expect(rc.comparisons[0]!.summary).toEqual(comparison('B200').summary);
    // --progress without a terminal: plain lines on stderr, nothing but the summary on stdout.
    expect(c.stderr).toMatch(/^verifying runs 0\/3/m);
    expect(c.stderr).toMatch(/^measuring pairs \d+\/\d+, frames \d+\/\d+/m);
    expect(c.stdout).toContain('Bundle: ');
  });
});

describe('verify-bundle', () => {
  const tampered = (name: string, edit: (dir: string) => void): string => {
    const dir = path.join(tmp, `tamper-${name}`);
    cpSync(A, dir, { recursive: true });
    edit(dir);
    return dir;
  };

  it('accepts the bundle and counts its files and links', async () => {
    const r = await cli(['verify-bundle', A]);
    expect(r.code).toBe(0);
    const files = readFileSync(path.join(A, 'SHA256SUMS'), 'utf8').trim().split('\n').length;
    expect(r.stdout).toMatch(new RegExp(`^${files} files, \\d+ links verified\\n$`));
    const json = await cli(['verify-bundle', A, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, files, errors: [] });
  });

  it('exits 2 when any file is changed, deleted or added, or the seal is edited', async () => {
    const media = readdirSync(path.join(A, 'media'))[0]!;
    const still = Object.keys(snapshot(A)).find((f) => f.endsWith('.webp'))!;
    const cases: [string, (dir: string) => void, string][] = [
      ['byte', (d) => {
        const f = path.join(d, 'media', media);
        const buf = readFileSync(f);
        buf[buf.length >> 1] = buf[buf.length >> 1]! ^ 0x01;
        writeFileSync(f, buf);
      }, 'BUNDLE_FILE_CHANGED'],
      ['page', (d) => appendFileSync(path.join(d, 'index.zh.html'), ' '), 'BUNDLE_FILE_CHANGED'],
      ['delete', (d) => unlinkSync(path.join(d, still)), 'BUNDLE_FILE_MISSING'],
      ['add', (d) => writeFileSync(path.join(d, 'media', 'extra.mp4'), 'x'), 'BUNDLE_FILE_EXTRA'],
      ['seal', (d) => {
        const f = path.join(d, 'SHA256SUMS');
        writeFileSync(f, readFileSync(f, 'utf8').replace(/^[0-9a-f]/, (x) => (x === 'a' ? 'b' : 'a')));
      }, 'BUNDLE_FILE_CHANGED'],
      ['unsealed', (d) => unlinkSync(path.join(d, 'SHA256SUMS')), 'BUNDLE_SEAL_MISSING'],
    ];
    for (const [name, edit, code] of cases) {
      const r = await cli(['verify-bundle', tampered(name, edit), '--json']);
      expect([name, r.code]).toEqual([name, 2]);
      expect((JSON.parse(r.stdout) as { errors: { code: string }[] }).errors.map((e) => e.code), name).toContain(code);
    }
  });
});

describe('refused comparisons leave --out exactly as it was', () => {
  /** A copy of B200 whose plan changes case 3's seed and the video fps, records and seal updated to match: a valid run of another workload. */
  function mismatchedRun(): string {
    const dir = path.join(tmp, 'b200-other-plan');
    if (existsSync(dir)) return dir;
    cpSync(run('b200'), dir, { recursive: true });
    const plan = readJson(path.join(dir, 'plan.json')) as { video: { fps: number }; cases: { seed: number }[] };
    plan.cases[3]!.seed = 4242;
    plan.video.fps = 25;
    const planText = `${JSON.stringify(plan, null, 2)}\n`;
    writeFileSync(path.join(dir, 'plan.json'), planText);
    const runJson = readJson(path.join(dir, 'run.json')) as { plan_sha256: string; records: { case_id: string; seed: number }[] };
    runJson.plan_sha256 = sha256(planText);
    const caseId = (plan.cases[3] as unknown as { case_id: string }).case_id;
    for (const r of runJson.records) if (r.case_id === caseId) r.seed = 4242;
    writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify(runJson, null, 2)}\n`);
    reseal(dir);
    return dir;
  }

  it('refuses a plan mismatch naming each differing field (exit 2), whether --out existed or not', async () => {
    const other = mismatchedRun();
    expect((await cli(['verify', other])).code).toBe(0);
    const existing = path.join(tmp, 'keep');
    cpSync(A, existing, { recursive: true });
    writeFileSync(path.join(existing, 'notes.txt'), 'my notes');
    const before = snapshot(existing);
    const r = await cli(['compare', run('h200'), other, '--out', existing, '--force']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/error PLAN_MISMATCH: .*video\.fps/);
    expect(r.stderr).toMatch(/error PLAN_MISMATCH: .*cases\[3\]\.seed/);
    expect(snapshot(existing)).toEqual(before);

    const absent = path.join(tmp, 'absent-parent', 'out');
    const j = await cli(['compare', run('h200'), run('h100'), other, '--out', absent, '--json']);
    expect(j.code).toBe(2);
    const doc = JSON.parse(j.stdout) as { errors: { code: string; where?: { path?: string } }[] };
    expect(doc.errors.map((e) => [e.code, e.where?.path])).toEqual([
      ['PLAN_MISMATCH', 'video.fps'],
      ['PLAN_MISMATCH', 'cases[3].seed'],
    ]);
    expect(existsSync(path.join(tmp, 'absent-parent'))).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.includes('fidelity-tmp'))).toEqual([]);
  });

  it('refuses runs without an artifact digest under --require-digest', async () => {
    const r = await cli(['compare', run('h200'), path.join(tmp, 'b200.zip'), '--out', path.join(tmp, 'digest-out'), '--require-digest', '--json']);
    expect(r.code).toBe(2);
    const codes = (JSON.parse(r.stdout) as { errors: { code: string }[] }).errors.map((e) => e.code);
    expect(codes).toContain('DIGEST_MISSING');
    expect(existsSync(path.join(tmp, 'digest-out'))).toBe(false);
  });

  it('refuses an invalid archive with its reason codes', async () => {
    const broken = path.join(tmp, 'h100-broken');
    cpSync(run('h100'), broken, { recursive: true });
    const f = path.join(broken, 'media', 'measurement-r000-c002.mp4');
    const buf = readFileSync(f);
    buf[100] = buf[100]! ^ 0xff;
    writeFileSync(f, buf);
    mkdirSync(path.join(tmp, 'empty-out'));
    const r = await cli(['compare', run('h200'), broken, '--out', path.join(tmp, 'empty-out'), '--json']);
    expect(r.code).toBe(2);
    const codes = (JSON.parse(r.stdout) as { errors: { code: string }[] }).errors.map((e) => e.code);
    expect(codes).toEqual(['RUN_INVALID', 'SEAL_HASH_MISMATCH']);
    expect(readdirSync(path.join(tmp, 'empty-out'))).toEqual([]);
  });
});
