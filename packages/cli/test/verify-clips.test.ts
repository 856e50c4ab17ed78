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
import type { Io } from '../src/io.js';
import { main } from '../src/main.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-verify-clips-'));
const runDir = path.join(tmp, 'h200');
const BOMB = 'measurement-r000-c000';
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
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
  clip: { valid: boolean } | null;
  failure?: { code: string; message: string };
}

describe('verify --clips is bounded', () => {
  it('reports a clip off the plan\'s size and frame count without decoding it; the others are analysed', async () => {
    const r = await cli('verify', runDir, '--clips', '--json');
    expect(r.code, r.err).toBe(0);
    const clips = (JSON.parse(r.out) as { clips: ClipLine[] }).clips;
    const bomb = clips.find((c) => c.slot_id === BOMB)!;
    expect(bomb.clip).toBeNull();
    expect(bomb.failure!.code).toBe('MEDIA_PLAN_MISMATCH');
    expect(bomb.failure!.message).toMatch(/width 320 px \(plan 112 px\), height 240 px \(plan 64 px\), frames 240 \(plan 12\); not decoded/);
    expect(clips.filter((c) => c.slot_id !== BOMB).every((c) => c.clip !== null)).toBe(true);
  }, 120_000);

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
