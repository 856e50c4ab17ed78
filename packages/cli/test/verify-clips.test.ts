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
    expect(r.code, r.err).toBe(0);
    const clips = (JSON.parse(r.out) as { clips: ClipLine[] }).clips;
    expect(clips.length).toBeGreaterThan(0);
    // Each clip's probe or decoder was killed by the limit: none was analysed.
    expect(clips.map((c) => c.failure?.code)).toEqual(clips.map(() => 'DECODE_TIMEOUT'));
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
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/measurement-r000-c001: valid \(corrupt frames not checked with this ffmpeg build\)\n/);
      // The clip off the plan is reported without being decoded; every other clip is analysed.
      expect(r.out).toMatch(new RegExp(`${BOMB}: not analysed: MEDIA_PLAN_MISMATCH .*width 320 px \\(plan 112 px\\), height 240 px \\(plan 64 px\\), frames 240 \\(plan 12\\); not decoded\n`));
      expect(r.out).not.toMatch(/measurement-r000-c00[1-9]: not analysed/);
    } finally {
      for (const [key, value] of [['FIDELITY_FFMPEG', saved.ffmpeg], ['FIDELITY_FFPROBE', saved.ffprobe]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }, 120_000);
});
