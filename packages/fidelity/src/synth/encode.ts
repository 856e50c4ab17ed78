/**
 * Renders one case (with or without a controlled difference) to an MP4 with
 * a command whose output bytes depend only on the ffmpeg binary:
 * - `-cpuflags 0`: ffmpeg's own SIMD paths (swscale, gblur, the AAC MDCT) are
 *   not all bit-exact with the C code, so the bytes would otherwise depend on
 *   the CPU; x264's assembly is bit-exact by design and keeps its speed.
 * - `-threads 1` and `-filter_threads 1`: no thread-count dependent slicing.
 * - `-fflags +bitexact`, `-flags:v/a +bitexact`, `-map_metadata -1`: no
 *   version strings or creation_time in the container.
 */
import { spawn } from 'node:child_process';
import { FidelityError } from '../errors.js';
import { childEnv } from '../media/child-env.js';
import type { LavfiSource } from './cases.js';
import type { FilterEdit } from './differences.js';
import type { SizeProfile } from './options.js';

export interface EncodeJob {
  source: LavfiSource;
  edit: FilterEdit;
  profile: SizeProfile;
  output: string;
}

export function planFrames(profile: SizeProfile): number {
  return profile.fps * profile.seconds;
}

export function encodeArgs(job: EncodeJob): string[] {
  const { source, edit, profile, output } = job;
  const frames = Math.max(1, Math.floor(planFrames(profile) * edit.keepFraction));
  // Audio is cut at the same instant as the video, in whole samples.
  const samples = Math.round((frames * profile.sampleRate) / profile.fps);
  const video = [`[0:v]trim=end_frame=${frames}`, 'setpts=PTS-STARTPTS', 'format=yuv420p', edit.video].filter(Boolean).join(',');
  const chains = [`${video}[v]`];
  const maps = ['-map', '[v]'];
  if (edit.audioTrack) {
    const audio = [`[1:a]atrim=end_sample=${samples}`, 'asetpts=PTS-STARTPTS', edit.audio].filter(Boolean).join(',');
    chains.push(`${audio}[a]`);
    maps.push('-map', '[a]');
  }
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    '-cpuflags', '0', '-filter_threads', '1', '-filter_complex_threads', '1',
    '-f', 'lavfi', '-i', source.video,
    ...(edit.audioTrack ? ['-f', 'lavfi', '-i', source.audio] : []),
    '-filter_complex', chains.join(';'),
    ...maps,
    '-c:v', 'libx264', '-preset', profile.x264Preset, '-crf', String(profile.crf), '-pix_fmt', 'yuv420p', '-threads', '1',
    ...(edit.audioTrack ? ['-c:a', 'aac', '-b:a', profile.audioBitrate, '-ac', '2', '-ar', String(profile.sampleRate)] : []),
    '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact',
    '-f', 'mp4', output,
  ];
}

/** Runs one encode; the process is killed when the signal aborts. */
export function runFfmpeg(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new FidelityError('ABORTED', 'generation was cancelled'));
      return;
    }
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'], env: childEnv() });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Only the tail matters for the error message; keep memory flat on chatty failures.
      stderr = (stderr + chunk).slice(-4000);
    });
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (cause) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new FidelityError('SYNTH_ENCODE_FAILED', `ffmpeg could not start (${ffmpeg}): ${cause.message}`, { cause }));
    });
    child.on('close', (code, killedBy) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(new FidelityError('ABORTED', 'generation was cancelled'));
      else if (code === 0) resolve();
      else {
        const why = killedBy ? `was killed by ${killedBy}` : `exited with code ${code}`;
        reject(new FidelityError('SYNTH_ENCODE_FAILED', `ffmpeg ${why} while writing ${output(args)}: ${stderr.trim() || '(no output)'}`));
      }
    });
  });
}

function output(args: string[]): string {
  return args[args.length - 1] ?? '?';
}
