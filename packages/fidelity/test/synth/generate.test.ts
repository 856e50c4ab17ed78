import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GithubCiJson, PlanJson, RunJson, measurementSlotId } from '../../src/schemas/run-archive.js';
import { generateRuns, MANIFEST_FILE, type GeneratedRuns } from '../../src/synth/index.js';
import { decodeAudio, ffmpegSsimY, peak, pooledRgbPsnr, probeStreams, readJson, rms, sha256, walk } from './helpers.js';

const committed = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));

let root: string;
let first: GeneratedRuns;
let second: GeneratedRuns;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-synth-'));
  first = await generateRuns({ outDir: path.join(root, 'a') });
  second = await generateRuns({ outDir: path.join(root, 'b'), concurrency: 1 });
});
afterAll(() => rm(root, { recursive: true, force: true }));

/**
 * probeStreams (ffprobe, every frame counted) once per distinct file content: what ffprobe reports
 * is a function of the bytes, and the runs hold many byte-identical MP4s (identical slots, the
 * warmup, the committed fixtures where this CPU's encoders give their bytes), so each is probed once.
 */
const probed = new Map<string, ReturnType<typeof probeStreams>>();
async function streamsOf(file: string): ReturnType<typeof probeStreams> {
  const digest = await sha256(file);
  let p = probed.get(digest);
  if (!p) {
    p = probeStreams(file);
    probed.set(digest, p);
  }
  return p;
}

const runDir = (site: string) => first.runs.find((r) => r.site === site)!.dir;
const media = (site: string, slot: string) => path.join(runDir(site), 'media', `${slot}.mp4`);
const slotOf = (site: string, difference: string) => first.slots.find((s) => s.site === site && s.difference === difference)!.slot_id;

describe('determinism', () => {
  it('gives the same bytes for every file on a second generation (whatever the concurrency)', async () => {
    const a = await walk(first.outDir);
    const b = await walk(second.outDir);
    expect(b).toEqual(a);
    expect(a).toContain(MANIFEST_FILE);
    for (const f of a) expect(await sha256(path.join(second.outDir, f)), f).toBe(await sha256(path.join(first.outDir, f)));
  });

  it('leaves only the run folders and the manifest behind (no staging or work folders)', async () => {
    const top = (await walk(first.outDir)).map((f) => f.split('/')[0]);
    expect([...new Set(top)].sort()).toEqual(['b200', 'h100', 'h200', MANIFEST_FILE].sort());
  });

  // x264 and the AAC encoder take CPU-specific SIMD paths, so the same ffmpeg binary
  // encodes other MP4 bytes on another CPU: the committed fixtures promise everything
  // but those bytes. What their media decode to is checked against the goldens
  // (test/metrics/golden.test.ts: the exact decoded pixels of every compatible slot).
  it('matches the committed fixtures/runs in every file that does not hold encoded media', async (ctx) => {
    if (!existsSync(path.join(committed, MANIFEST_FILE))) ctx.skip();
    const fresh = await walk(first.outDir);
    expect(await walk(committed)).toEqual(fresh);
    const encoded = (f: string) => f.endsWith('.mp4');
    const sums = (text: string) => text.trimEnd().split('\n').filter((l) => !encoded(l.slice(66)));
    for (const f of fresh.filter((x) => !encoded(x))) {
      const [ours, theirs] = await Promise.all([readFile(path.join(first.outDir, f), 'utf8'), readFile(path.join(committed, f), 'utf8')]);
      if (f.endsWith('SHA256SUMS')) expect(sums(theirs), f).toEqual(sums(ours));
      else if (f === MANIFEST_FILE) expect(dropFfmpeg(theirs), f).toEqual(dropFfmpeg(ours));
      else expect(theirs, f).toBe(ours);
    }
  });

  it('the committed MP4s have the streams, sizes, frame and sample counts a fresh generation has', async (ctx) => {
    if (!existsSync(path.join(committed, MANIFEST_FILE))) ctx.skip();
    const layout = async (file: string) =>
      (await streamsOf(file)).map((s) => [s.codec_type, s.codec_name, s.width, s.height, s.pix_fmt, s.nb_read_frames, s.sample_rate, s.channels]);
    const mp4s = (await walk(first.outDir)).filter((f) => f.endsWith('.mp4'));
    expect(mp4s.length).toBeGreaterThan(20);
    for (const f of mp4s) expect(await layout(path.join(committed, f)), f).toEqual(await layout(path.join(first.outDir, f)));
  });
});

/** The manifest without the encoder's identity (fixtures made with another ffmpeg build are still the same fixtures). */
function dropFfmpeg(manifest: string): unknown {
  const { ffmpeg: _ffmpeg, ...rest } = JSON.parse(manifest) as Record<string, unknown>;
  return rest;
}

describe('archive shape (docs/run-archive.md)', () => {
  it('writes the three sites with their roles, identities and the same plan bytes', async () => {
    expect(first.runs.map((r) => [r.site, r.role, r.folder])).toEqual([
      ['H200', 'baseline', 'h200'],
      ['B200', 'candidate', 'b200'],
      ['H100', 'candidate', 'h100'],
    ]);
    const plans = await Promise.all(first.runs.map((r) => readFile(path.join(r.dir, 'plan.json'))));
    expect(new Set(plans.map((p) => p.toString('hex'))).size).toBe(1);
    expect(createHash('sha256').update(plans[0]!).digest('hex')).toBe(first.plan.plan_sha256);
    const ids = new Set<string>();
    for (const r of first.runs) {
      const ci = GithubCiJson.parse(await readJson(path.join(r.dir, 'ci.json')));
      expect(ci.hardware).toEqual({ gpu_model: r.site, gpus_allocated: 8, gpus_participating: 2 });
      expect(ci.server_url).toBe('https://github.com');
      expect(ci.repository).toBe('example-org/video-serving-bench');
      expect(ci.artifact.name.endsWith(`-${ci.run_id}-${ci.run_attempt}`)).toBe(true);
      expect([ci.run_id, ci.run_attempt]).toEqual([r.run_id, r.run_attempt]);
      ids.add(`${ci.run_id}/${ci.head_sha}/${ci.artifact.id}`);
    }
    expect(ids.size).toBe(3);
  });

  it('has a small plan with every prompt, non-ASCII text and HTML specials', async () => {
    const plan = PlanJson.parse(await readJson(path.join(runDir('H200'), 'plan.json')));
    expect(plan.video).toEqual({ width: 112, height: 64, fps: 12, frames: 12 });
    expect(plan.audio).toEqual({ sample_rate: 32000, channels: 2 });
    expect([plan.warmup_runs, plan.repetitions, plan.cases.length]).toEqual([1, 1, 10]);
    expect(plan.cases.map((c) => c.case_id)).toContain('spoken-greeting-s11');
    for (const c of plan.cases) expect(c.case_id).toBe(`${c.case_id.replace(/-s\d+$/, '')}-s${c.seed}`);
    const prompts = plan.cases.map((c) => c.prompt).join('\n');
    for (const needle of ['<b>', '&', '"', "'", '夜市', 'mélodie', '🎻']) expect(prompts).toContain(needle);
  });

  it('writes run.json with every planned slot in order, warmup first, and consistent timing', async () => {
    for (const r of first.runs) {
      const plan = PlanJson.parse(await readJson(path.join(r.dir, 'plan.json')));
      const run = RunJson.parse(await readJson(path.join(r.dir, 'run.json')));
      expect([run.run_id, run.run_attempt, run.plan_sha256, run.expected_gpu_count]).toEqual([r.run_id, r.run_attempt, first.plan.plan_sha256, 2]);
      const expected = ['warmup-000', ...plan.cases.map((_, i) => measurementSlotId(0, i))];
      expect(run.records.map((x) => x.slot_id)).toEqual(expected);
      expect(run.records[0]!.kind).toBe('warmup');
      const win = run.measurement_window!;
      let previousEnd = win.start_unix;
      for (const rec of run.records) {
        const planCase = plan.cases.find((c) => c.case_id === rec.case_id)!;
        expect([rec.prompt, rec.seed]).toEqual([planCase.prompt, planCase.seed]);
        if (rec.status === 'failed') {
          expect([rec.media, rec.latency_s, typeof rec.error]).toEqual([null, null, 'string']);
          continue;
        }
        expect(rec.media).toBe(`media/${rec.slot_id}.mp4`);
        expect(existsSync(path.join(r.dir, rec.media!))).toBe(true);
        if (rec.kind === 'warmup') continue;
        const w = rec.window!;
        expect(w.start_unix).toBeGreaterThanOrEqual(previousEnd);
        expect(w.end_unix).toBeLessThanOrEqual(win.end_unix);
        expect(w.end_unix - w.start_unix).toBeCloseTo(rec.latency_s!, 3);
        previousEnd = w.end_unix;
        const t = rec.server_timing!;
        expect(t.clock_id).toMatch(/^linux:[0-9a-f-]{36}:CLOCK_MONOTONIC$/);
        const stages = [t.http_received_ns, t.http_accepted_ns, t.scheduler_dispatch_ns, t.forward_finished_ns, t.media_ready_ns];
        expect([...stages].sort((a, b) => a - b)).toEqual(stages);
        expect(stages.every(Number.isSafeInteger)).toBe(true);
      }
    }
  });

  it('seals every other file exactly once with its correct SHA-256', async () => {
    for (const r of first.runs) {
      const text = await readFile(path.join(r.dir, 'SHA256SUMS'), 'utf8');
      const lines = text.trimEnd().split('\n');
      for (const l of lines) expect(l).toMatch(/^[0-9a-f]{64} {2}[^/.][^\s]*$/);
      const listed = lines.map((l) => l.slice(66));
      const files = (await walk(r.dir)).filter((f) => f !== 'SHA256SUMS');
      expect(listed).toEqual(files);
      expect(r.files).toEqual([...files, 'SHA256SUMS'].sort());
      for (const l of lines) expect(await sha256(path.join(r.dir, l.slice(66)))).toBe(l.slice(0, 64));
    }
  });

  it('writes nvidia-smi style power telemetry for 2 GPUs, with a >3 s gap only in the H100 run', async () => {
    for (const r of first.runs) {
      const run = RunJson.parse(await readJson(path.join(r.dir, 'run.json')));
      const csv = (await readFile(path.join(r.dir, 'telemetry', 'gpu_metrics.csv'), 'utf8')).trimEnd().split('\n');
      expect(csv[0]).toBe('timestamp, index, power.draw [W]');
      const rows = csv.slice(1).map((l) => {
        const m = /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d\.\d{3}), ([01]), (\d+\.\d\d) W$/.exec(l);
        expect(m, l).not.toBeNull();
        const [, y, mo, d, h, mi, s, gpu, w] = m!;
        return { t: Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!) / 1000 + Number(s), gpu: Number(gpu), watts: Number(w) };
      });
      const { start_unix: start, end_unix: end } = run.measurement_window!;
      for (const gpu of [0, 1]) {
        const ts = rows.filter((x) => x.gpu === gpu).map((x) => x.t);
        expect(ts[0]!).toBeLessThan(start);
        expect(ts.at(-1)!).toBeGreaterThan(end);
        let maxGap = 0;
        for (let i = 1; i < ts.length; i++) if (ts[i]! > start && ts[i - 1]! < end) maxGap = Math.max(maxGap, ts[i]! - ts[i - 1]!);
        if (r.site === 'H100') expect(maxGap).toBeGreaterThan(3);
        else expect(maxGap).toBeLessThan(1.1);
      }
      expect(r.expected_power_valid).toBe(r.site !== 'H100');
      const events = (await readFile(path.join(r.dir, 'telemetry', 'server_timing.jsonl'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { t_ns: number; request_id: string; event: string });
      expect(events.map((e) => e.t_ns)).toEqual(events.map((e) => e.t_ns).sort((a, b) => a - b));
      const received = run.records.find((x) => x.server_timing)!;
      expect(events).toContainEqual(expect.objectContaining({ request_id: received.slot_id, event: 'http_received', t_ns: received.server_timing!.http_received_ns }));
    }
  });
});

describe('controlled differences', () => {
  it('lists one difference per candidate slot, and the baseline is clean', () => {
    expect(first.slots.every((s) => s.site !== 'H200')).toBe(true);
    expect(first.slots).toHaveLength(20);
    const b200 = first.slots.filter((s) => s.site === 'B200').map((s) => s.difference);
    for (const d of ['light_noise', 'slight_blur', 'heavy_noise', 'audio_gain_0_8', 'channel_silenced', 'request_failed', 'shorter_stream', 'missing_audio', 'identical']) {
      expect(b200).toContain(d);
    }
  });

  it('copies identical slots byte for byte and really changes the others', async () => {
    for (const s of first.slots) {
      if (s.difference === 'request_failed') continue;
      const same = (await sha256(media('H200', s.slot_id))) === (await sha256(media(s.site, s.slot_id)));
      expect(same, `${s.site} ${s.slot_id} ${s.difference}`).toBe(s.difference === 'identical');
    }
    expect(await sha256(media('H200', 'warmup-000'))).toBe(await sha256(media('H200', 'measurement-r000-c000')));
  });

  it('baseline media are H.264 yuv420p + stereo AAC at the plan size', async () => {
    const streams = await streamsOf(media('H200', 'measurement-r000-c003'));
    expect(streams.map((s) => [s.codec_type, s.codec_name])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ]);
    expect(streams[0]).toMatchObject({ width: 112, height: 64, pix_fmt: 'yuv420p', nb_read_frames: '12' });
    expect(streams[1]).toMatchObject({ sample_rate: '32000', channels: 2 });
  });

  it('the failed request has no media; the shorter stream has fewer frames; the missing-audio one has no audio', async () => {
    const failed = slotOf('B200', 'request_failed');
    const run = RunJson.parse(await readJson(path.join(runDir('B200'), 'run.json')));
    const rec = run.records.find((r) => r.slot_id === failed)!;
    expect([rec.status, rec.media, rec.latency_s]).toEqual(['failed', null, null]);
    expect(rec.error).toMatch(/timed out/);
    expect(existsSync(media('B200', failed))).toBe(false);

    const short = slotOf('B200', 'shorter_stream');
    const [base, cand] = await Promise.all([streamsOf(media('H200', short)), streamsOf(media('B200', short))]);
    expect(Number(cand[0]!.nb_read_frames)).toBe(10);
    expect(Number(base[0]!.nb_read_frames)).toBe(12);
    expect(cand.some((s) => s.codec_type === 'audio')).toBe(true);

    const mute = slotOf('B200', 'missing_audio');
    expect((await streamsOf(media('B200', mute))).map((s) => s.codec_type)).toEqual(['video']);
    expect((await streamsOf(media('H200', mute))).map((s) => s.codec_type)).toEqual(['video', 'audio']);
  });

  it('audio gain 0.8 gives an rms ratio near 0.8; the silenced channel is newly silent', async () => {
    for (const site of ['B200', 'H100']) {
      const slot = slotOf(site, 'audio_gain_0_8');
      const [a, b] = await Promise.all([decodeAudio(media('H200', slot)), decodeAudio(media(site, slot))]);
      for (const c of [0, 1]) expect(rms(b[c]!) / rms(a[c]!)).toBeCloseTo(0.8, 1);
    }
    const slot = slotOf('B200', 'channel_silenced');
    const [a, b] = await Promise.all([decodeAudio(media('H200', slot)), decodeAudio(media('B200', slot))]);
    expect(peak(a[1]!)).toBeGreaterThan(0.1);
    expect(peak(b[1]!)).toBeLessThan(1e-4);
    expect(rms(b[0]!) / rms(a[0]!)).toBeCloseTo(1, 1);
  });

  it('light noise and slight blur stay well inside the example thresholds; heavy noise is far outside', async () => {
    const check = async (site: string, difference: string) => {
      const slot = slotOf(site, difference);
      const [ssim, psnr] = await Promise.all([ffmpegSsimY(media('H200', slot), media(site, slot)), pooledRgbPsnr(media('H200', slot), media(site, slot))]);
      expect(ssim).toHaveLength(12);
      return { min: Math.min(...ssim), psnr: psnr! };
    };
    for (const [site, difference] of [['B200', 'light_noise'], ['B200', 'slight_blur'], ['H100', 'slight_blur']] as const) {
      const r = await check(site, difference);
      expect(r.min, `${site} ${difference}`).toBeGreaterThan(0.95);
      expect(r.psnr, `${site} ${difference}`).toBeGreaterThan(31);
    }
    const heavy = await check('B200', 'heavy_noise');
    expect(heavy.min).toBeLessThan(0.7);
    expect(heavy.psnr).toBeLessThan(27);
  });
});
