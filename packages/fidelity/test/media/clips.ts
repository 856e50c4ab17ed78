/**
 * Small clips made on the fly with the resolved ffmpeg, shared by the media
 * and pool tests. Tiny on purpose (128x72, about a second): every check here
 * is about structure and plumbing, not about the metric values.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';

const run = promisify(execFile);

export interface ClipSpec {
  width?: number;
  height?: number;
  fps?: number;
  frames?: number;
  /** null: no audio stream. A sine tone, 440 Hz unless `frequency` says otherwise. */
  audio?: { sampleRate?: number; channels?: number; seconds?: number; frequency?: number } | null;
  pixFmt?: string;
  /** x264 quality; a different value gives a different but compatible clip. */
  crf?: number;
  /** Video codec and container, for the formats x264 cannot make. */
  codec?: string;
  ext?: string;
  /** testsrc2 pattern offset in frames, to vary the picture. */
  start?: number;
  /** Appended to the video chain (after the trim): e.g. `tpad=start=1:start_mode=clone` to repeat the first frame. The clip keeps `frames` frames. */
  videoFilter?: string;
  /** x264 constant quantiser instead of crf: 0 is lossless (the decoded planes are the source's). */
  qp?: number;
}

export async function ffmpegPath(): Promise<string> {
  return (await resolveFfmpeg()).ffmpeg.path;
}

export async function ffprobePath(): Promise<string> {
  return (await resolveFfmpeg()).ffprobe.path;
}

export class ClipFactory {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'fidelity-clips-'));
  #count = 0;

  async make(spec: ClipSpec = {}, name?: string): Promise<string> {
    const { width = 128, height = 72, fps = 24, frames = 24, pixFmt = 'yuv420p', crf = 20, codec = 'libx264', ext = 'mp4', start = 0 } = spec;
    const audio = spec.audio === undefined ? {} : spec.audio;
    const file = path.join(this.dir, `${name ?? `clip-${this.#count++}`}.${ext}`);
    const args = ['-nostdin', '-hide_banner', '-v', 'error', '-y'];
    // trim, not -frames:v: ending the output at a video frame count would cut the audio short too.
    const extra = spec.videoFilter ? `,${spec.videoFilter}` : '';
    args.push('-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=${fps},trim=start_frame=${start}:end_frame=${start + frames},setpts=PTS-STARTPTS${extra}`);
    if (audio) {
      const rate = audio.sampleRate ?? 32000;
      const seconds = audio.seconds ?? frames / fps;
      args.push('-f', 'lavfi', '-i', `sine=frequency=${audio.frequency ?? 440}:sample_rate=${rate}:duration=${seconds}`);
    }
    args.push('-map', '0:v', '-c:v', codec, '-pix_fmt', pixFmt);
    if (codec === 'libx264') args.push('-preset', 'ultrafast', ...(spec.qp === undefined ? ['-crf', String(crf)] : ['-qp', String(spec.qp)]), '-g', '12');
    // A filter may add frames (tpad): the clip still has `frames`.
    if (spec.videoFilter) args.push('-frames:v', String(frames));
    if (audio) args.push('-map', '1:a', '-ac', String(audio.channels ?? 2), '-c:a', 'aac', '-b:a', '64k');
    args.push(file);
    await run(await ffmpegPath(), args);
    return file;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Pids of this process's direct children whose command is ffmpeg or ffprobe. */
export async function ffmpegChildren(): Promise<number[]> {
  const { stdout } = await run('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'ffmpeg' || comm === 'ffprobe')
    .map(([pid]) => Number(pid));
}
