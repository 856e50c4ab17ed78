/**
 * A clip is held to every length the plan states before it is decoded, its audio's too: a clip with
 * the plan's picture (112x64, 12 frames at 12 fps: 1 s) and two hours of silent FLAC is reported
 * MEDIA_PLAN_MISMATCH (audio_duration) without its audio being decoded, by `verify --clips` and by
 * `compare` when its slot's pair is refused (the clip analysed on its own). A copy of the committed
 * H200 run with its c006 clip (paired with B200's failed request) replaced, resealed. The two hours
 * are made in seconds: one minute of FLAC, repeated by stream copy. That the clip is not decoded is
 * seen by the ffmpeg itself: a wrapper logs the file behind every input it is given (each input is a
 * link, media/input-links.ts), and the clip is never among them while the others are.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../fidelity/src/media/ffmpeg.js';
import { capture } from './capture.js';
import { main } from '../src/main.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-long-audio-'));
const runDir = path.join(tmp, 'h200');
const SLOT = 'measurement-r000-c006';
const log = path.join(tmp, 'decoded.log');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the command line with the logging ffmpeg; returns what it printed and the files ffmpeg was given. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string; decoded: string[] }> {
  const { ffmpeg, ffprobe } = await resolveFfmpeg();
  const wrapper = path.join(tmp, 'ffmpeg');
  writeFileSync(wrapper, `#!/bin/sh\nfor a in "$@"; do [ -L "$a" ] && readlink -f "$a" >> '${log}'; done\nexec '${ffmpeg.path}' "$@"\n`, { mode: 0o755 });
  rmSync(log, { force: true });
  const saved = { ffmpeg: process.env.FIDELITY_FFMPEG, ffprobe: process.env.FIDELITY_FFPROBE };
  process.env.FIDELITY_FFMPEG = wrapper;
  process.env.FIDELITY_FFPROBE = ffprobe.path;
  try {
    const io = capture();
    const code = await main(args, io);
    const decoded = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    return { code, out: io.stdout(), err: io.stderr(), decoded };
  } finally {
    for (const [key, value] of [['FIDELITY_FFMPEG', saved.ffmpeg], ['FIDELITY_FFPROBE', saved.ffprobe]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** The long clip was never given to ffmpeg; other clips of the run were. */
function notDecoded(decoded: readonly string[]): void {
  const clip = realpathSync(path.join(runDir, 'media', `${SLOT}.mp4`));
  expect(decoded.some((f) => f.startsWith(realpathSync(runDir)))).toBe(true);
  expect(decoded).not.toContain(clip);
}

beforeAll(async () => {
  cpSync(path.join(ROOT, 'fixtures', 'runs', 'h200'), runDir, { recursive: true });
  const { ffmpeg } = await resolveFfmpeg();
  const run = (...args: string[]) => promisify(execFile)(ffmpeg.path, ['-nostdin', '-v', 'error', '-y', ...args]);
  const minute = path.join(tmp, 'minute.flac');
  await run('-f', 'lavfi', '-t', '60', '-i', 'anullsrc=r=32000:cl=stereo', '-c:a', 'flac', minute);
  const list = path.join(tmp, 'list.txt');
  writeFileSync(list, `file '${minute}'\n`.repeat(120));
  const clip = path.join(runDir, 'media', `${SLOT}.mp4`);
  await run(
    '-f', 'lavfi', '-i', 'testsrc=size=112x64:rate=12:duration=1', '-f', 'concat', '-safe', '0', '-i', list,
    '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'copy', '-strict', '-2', clip,
  );
  const sums = readFileSync(path.join(runDir, 'SHA256SUMS'), 'utf8').split('\n').map((line) => {
    if (!line.endsWith(`media/${SLOT}.mp4`)) return line;
    return `${createHash('sha256').update(readFileSync(clip)).digest('hex')}  media/${SLOT}.mp4`;
  });
  writeFileSync(path.join(runDir, 'SHA256SUMS'), sums.join('\n'));
}, 120_000);

const OFF = new RegExp(`audio_duration 7200 s \\(plan 1 s \\+ 1 s at most\\); not decoded`);

describe('a plan-sized picture with hours of audio', () => {
  it('verify --clips reports it MEDIA_PLAN_MISMATCH without decoding it', async () => {
    const r = await cli('verify', runDir, '--clips', '--json');
    expect(r.code, r.err).toBe(5);
    const clips = (JSON.parse(r.out) as { clips: { slot_id: string; failure?: { code: string; message: string } }[] }).clips;
    const clip = clips.find((c) => c.slot_id === SLOT)!;
    expect(clip.failure?.code).toBe('MEDIA_PLAN_MISMATCH');
    expect(clip.failure?.message).toMatch(OFF);
    notDecoded(r.decoded);
  }, 180_000);

  it('compare analyses it on its own (its pair is refused) and reports it MEDIA_PLAN_MISMATCH without decoding it', async () => {
    const out = path.join(tmp, 'bundle');
    const r = await cli('compare', runDir, path.join(ROOT, 'fixtures', 'runs', 'b200'), '--out', out, '--threads', '2');
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { runs: { clips?: { invalid_by_code: Record<string, number> } }[] };
    expect(report.runs[0]!.clips?.invalid_by_code).toMatchObject({ MEDIA_PLAN_MISMATCH: 1 });
    notDecoded(r.decoded);
  }, 240_000);
});
