/**
 * `fidelity verify --clips` is bounded: a clip off the plan's size or frame count is reported
 * (MEDIA_PLAN_MISMATCH) without being decoded, as compare refuses such a pair before decoding, and
 * `--decode-timeout` limits every ffmpeg/ffprobe child as it does for compare. A copy of the
 * committed H200 run (112x64, 12 frames at 12 fps) with one clip replaced by a larger, longer one
 * made here, resealed.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../fidelity/src/media/ffmpeg.js';
import { capture } from './capture.js';
import { main } from '../src/main.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-verify-clips-'));
const runDir = path.join(tmp, 'h200');
const BOMB = 'measurement-r000-c000';
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capture();
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

beforeAll(async () => {
  cpSync(path.join(ROOT, 'fixtures', 'runs', 'h200'), runDir, { recursive: true });
  const { ffmpeg } = await resolveFfmpeg();
  // Black frames compress to almost nothing: a small file of many more, larger frames than planned.
  const bomb = path.join(runDir, 'media', `${BOMB}.mp4`);
  await promisify(execFile)(ffmpeg.path, [
    '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=black:size=320x240:rate=12:duration=20',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=32000:duration=20',
    '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-ac', '2', bomb,
  ]);
  const sums = readFileSync(path.join(runDir, 'SHA256SUMS'), 'utf8').split('\n').map((line) => {
    if (!line.endsWith(`media/${BOMB}.mp4`)) return line;
    return `${createHash('sha256').update(readFileSync(bomb)).digest('hex')}  media/${BOMB}.mp4`;
  });
  writeFileSync(path.join(runDir, 'SHA256SUMS'), sums.join('\n'));
}, 60_000);

interface ClipLine {
  slot_id: string;
  failure?: { code: string; message: string };
}

describe('verify --clips is bounded', () => {
  it('takes --decode-timeout as compare does: a limit too short to decode kills each clip\'s decoder', async () => {
    const r = await cli('verify', runDir, '--clips', '--json', '--decode-timeout', '0.001');
    // No clip could be analysed: none is valid, so the verdict is not a pass.
    expect(r.code, r.err).toBe(5);
    expect((JSON.parse(r.out) as { clip_summary: { verdict: string } }).clip_summary.verdict).toBe('invalid');
    const clips = (JSON.parse(r.out) as { clips: ClipLine[] }).clips;
    expect(clips.length).toBeGreaterThan(0);
    // Each clip's decoder was killed by the limit: none was analysed. The probes are read in the
    // process (the MP4 reader, no ffprobe to kill), so the clip off the plan is reported as such, undecoded.
    expect(clips.map((c) => c.failure?.code)).toEqual(clips.map((c) => (c.slot_id === BOMB ? 'MEDIA_PLAN_MISMATCH' : 'DECODE_TIMEOUT')));
    const bad = await cli('verify', runDir, '--clips', '--decode-timeout', 'soon');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--decode-timeout/);
  }, 120_000);
});

describe('verify --clips says what it did not check', () => {
  it('reports a clip off the plan without decoding it; with a build that cannot report corrupt frames, a valid clip says they were not checked', async () => {
    const { ffmpeg, ffprobe } = await resolveFfmpeg();
    // An ffmpeg that says it is the npm package's 4.1 (whose log never has the corrupt-frame line) and decodes with the real one.
    const wrapper = path.join(tmp, 'ffmpeg');
    writeFileSync(wrapper, `#!/bin/sh\ncase " $* " in *" -version "*) echo "ffmpeg version 4.1 Copyright (c) 2000-2018 the FFmpeg developers"; exit 0;; esac\nexec '${ffmpeg.path}' "$@"\n`, { mode: 0o755 });
    const saved = { ffmpeg: process.env.FIDELITY_FFMPEG, ffprobe: process.env.FIDELITY_FFPROBE };
    process.env.FIDELITY_FFMPEG = wrapper;
    process.env.FIDELITY_FFPROBE = ffprobe.path;
    try {
      const r = await cli('verify', runDir, '--clips');
      // The clip off the plan is not a valid clip: exit 5, and the text names it first.
      expect(r.code, r.err).toBe(5);
      expect(r.out.split('\n')[0]).toBe(`clips INVALID: 1 of 10 measurement clips: ${BOMB} (MEDIA_PLAN_MISMATCH)`);
      expect(r.out).toMatch(/measurement-r000-c001: valid \(corrupt frames not checked with this ffmpeg build\)\n/);
      // The clip off the plan is reported without being decoded; every other clip is analysed.
      expect(r.out).toMatch(new RegExp(`${BOMB}: not analysed: MEDIA_PLAN_MISMATCH .*width 320 px \\(plan 112 px\\), height 240 px \\(plan 64 px\\), frames 240 \\(plan 12\\), audio_duration 20[.0-9]* s \\(plan 1 s \\+ 1 s at most\\); not decoded\n`));
      expect(r.out).not.toMatch(/measurement-r000-c00[1-9]: not analysed/);
    } finally {
      for (const [key, value] of [['FIDELITY_FFMPEG', saved.ffmpeg], ['FIDELITY_FFPROBE', saved.ffprobe]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }, 120_000);
});

describe('verify --clips has a verdict', () => {
  const copy = (name: string): string => {
    const dir = path.join(tmp, name);
    cpSync(path.join(ROOT, 'fixtures', 'runs', 'h200'), dir, { recursive: true });
    return dir;
  };

  it('exits 0 only when every completed clip is valid', async () => {
    const r = await cli('verify', copy('intact'), '--clips');
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toBe('clips valid: all 10 measurement clips');
  }, 120_000);

  it('a run whose every request failed has nothing to judge: exit 5, not a pass', async () => {
    const dir = copy('all-failed');
    // Every measurement request failed: its record says so and the media are gone, resealed.
    const runJson = path.join(dir, 'run.json');
    const doc = JSON.parse(readFileSync(runJson, 'utf8')) as { records: Record<string, unknown>[] };
    const file = (rel: string) => path.join(dir, ...rel.split('/'));
    const sums = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').trim().split('\n');
    const gone = new Set<string>();
    for (const r of doc.records) {
      if (r.kind !== 'measurement') continue;
      if (typeof r.media === 'string') gone.add(r.media);
      // As the run writes a failed request: no media, no latency, no window or server timing.
      Object.assign(r, { status: 'failed', error: 'CUDA out of memory', media: null, latency_s: null });
      delete r.window;
      delete r.server_timing;
    }
    writeFileSync(runJson, `${JSON.stringify(doc, null, 2)}\n`);
    for (const rel of gone) rmSync(file(rel));
    const kept = sums.filter((l) => !gone.has(l.slice(66))).map((l) => (l.slice(66) === 'run.json' ? `${createHash('sha256').update(readFileSync(runJson)).digest('hex')}  run.json` : l));
    writeFileSync(path.join(dir, 'SHA256SUMS'), `${kept.join('\n')}\n`);
    const r = await cli('verify', dir, '--clips');
    expect(r.err).not.toMatch(/^error/m);
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.out.split('\n')[0]).toMatch(/^clips NOT judged: the run has no completed measurement clip/);
    const j = await cli('verify', dir, '--clips', '--json');
    expect(j.code).toBe(5);
    expect((JSON.parse(j.out) as { clip_summary: { verdict: string; analysed: number } }).clip_summary).toMatchObject({ verdict: 'nothing_to_judge', analysed: 0 });
  }, 120_000);
});
