/**
 * What `fidelity doctor` says about the resolved ffmpeg + ffprobe pair. Both
 * parse untrusted MP4s, so an old build, two different builds, or a PATH pair
 * passed over for the npm one deserve a warning; none stops a run.
 */
import type { FfmpegToolchain } from './ffmpeg.js';

/** A build whose copyright year is more than this many years before today is called old. */
export const FFMPEG_MAX_AGE_YEARS = 3;

/** One thing worth knowing about the ffmpeg pair; `kind` is stable, `message` is for people. */
export interface FfmpegAdvice {
  kind: 'versions-differ' | 'old-build' | 'path-passed-over';
  message: string;
}

/** The version token and build year of a `-version` first line ("ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 ..."). */
export function parseFfmpegVersionLine(line: string): { version: string; year: number | undefined } {
  const version = /^\S+ version (\S+)/.exec(line)?.[1] ?? '';
  const year = /Copyright \(c\) (?:\d{4}-)?(\d{4})/.exec(line)?.[1];
  return { version, year: year === undefined ? undefined : Number(year) };
}

const MAINTAINED =
  'To use a maintained build, install one (on Debian/Ubuntu: apt-get install ffmpeg, which puts both on PATH, where they are preferred), ' +
  'or set both FIDELITY_FFMPEG=/usr/bin/ffmpeg and FIDELITY_FFPROBE=/usr/bin/ffprobe; reports then record that decoder instead.';

/**
 * Warnings about a resolved pair: a PATH pair was passed over (not one build, or not running), the
 * two binaries are different builds, or a build is older than {@link FFMPEG_MAX_AGE_YEARS} years.
 * Returns an empty list when there is nothing to say.
 *
 * @example
 * ```ts
 * import { ffmpegAdvice, resolveFfmpeg } from 'media-fidelity';
 * for (const a of ffmpegAdvice(await resolveFfmpeg())) console.warn(a.message);
 * ```
 */
export function ffmpegAdvice(tools: FfmpegToolchain, now: Date = new Date()): FfmpegAdvice[] {
  const out: FfmpegAdvice[] = [];
  for (const p of tools.passedOver ?? []) {
    out.push({
      kind: 'path-passed-over',
      message: `The ffmpeg and ffprobe on PATH (${p.ffmpeg}, ${p.ffprobe}) were not used: ${p.reason}. The npm packages' pair runs instead. ${MAINTAINED}`,
    });
  }
  const ffmpeg = parseFfmpegVersionLine(tools.ffmpeg.version);
  const ffprobe = parseFfmpegVersionLine(tools.ffprobe.version);
  if (ffmpeg.version !== ffprobe.version) {
    out.push({
      kind: 'versions-differ',
      message: `ffmpeg (${ffmpeg.version}${ffmpeg.year ? `, ${ffmpeg.year}` : ''}) and ffprobe (${ffprobe.version}${ffprobe.year ? `, ${ffprobe.year}` : ''}) are different builds, so two versions parse the same MP4s. ${MAINTAINED}`,
    });
  }
  const thisYear = now.getUTCFullYear();
  for (const [name, v] of [['ffmpeg', ffmpeg], ['ffprobe', ffprobe]] as const) {
    if (v.year !== undefined && thisYear - v.year > FFMPEG_MAX_AGE_YEARS) {
      out.push({
        kind: 'old-build',
        message: `${name} is a ${v.year} build (${thisYear - v.year} years old) and lacks the fixes made since to its MP4 parsing. ${MAINTAINED}`,
      });
    }
  }
  return out;
}
