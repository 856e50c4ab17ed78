/**
 * The one place that decides which ffmpeg and ffprobe binaries run, and that
 * reports what they are. Everything else asks this module; nothing else reads
 * FIDELITY_FFMPEG or looks at npm packages.
 *
 * Order: explicit option -> FIDELITY_FFMPEG / FIDELITY_FFPROBE -> ffmpeg-static
 * (only when its binary file really exists: its install step downloads it and
 * may have failed) -> @ffmpeg-installer / @ffprobe-installer -> PATH.
 */
import { execFile } from 'node:child_process';
import { existsSync, accessSync, constants as fsConstants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { sha256File } from '../hash.js';

export type BinaryKind = 'ffmpeg' | 'ffprobe';
export type BinarySource = 'option' | 'env' | 'ffmpeg-static' | 'installer' | 'path';

export interface BinaryCandidate {
  source: BinarySource;
  path: string;
}

export interface BinaryIdentity {
  kind: BinaryKind;
  source: BinarySource;
  path: string;
  /** The first line of `-version`, e.g. "ffmpeg version 4.1 ...". */
  version: string;
  sha256: string;
}

export interface ResolveOptions {
  ffmpegPath?: string;
  ffprobePath?: string;
  env?: NodeJS.ProcessEnv;
}

const require = createRequire(import.meta.url);

function tryRequirePath(id: string, pick: (mod: unknown) => unknown): string | undefined {
  try {
    const value = pick(require(id));
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const file = path.join(dir, name);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

/** Every place the binary could come from, in priority order, without running anything. */
export function binaryCandidates(kind: BinaryKind, options: ResolveOptions = {}): BinaryCandidate[] {
  const env = options.env ?? process.env;
  const out: BinaryCandidate[] = [];
  const explicit = kind === 'ffmpeg' ? options.ffmpegPath : options.ffprobePath;
  if (explicit) out.push({ source: 'option', path: explicit });
  const fromEnv = kind === 'ffmpeg' ? env.FIDELITY_FFMPEG : env.FIDELITY_FFPROBE;
  if (fromEnv) out.push({ source: 'env', path: fromEnv });
  if (kind === 'ffmpeg') {
    const staticPath = tryRequirePath('ffmpeg-static', (m) => m);
    if (staticPath && existsSync(staticPath)) out.push({ source: 'ffmpeg-static', path: staticPath });
    const installer = tryRequirePath('@ffmpeg-installer/ffmpeg', (m) => (m as { path?: string }).path);
    if (installer && existsSync(installer)) out.push({ source: 'installer', path: installer });
  } else {
    const installer = tryRequirePath('@ffprobe-installer/ffprobe', (m) => (m as { path?: string }).path);
    if (installer && existsSync(installer)) out.push({ source: 'installer', path: installer });
  }
  const onPath = findOnPath(kind, env);
  if (onPath) out.push({ source: 'path', path: onPath });
  return out;
}

function runVersion(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, ['-hide_banner', '-version'], { timeout: 15_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.split('\n')[0]?.trim() ?? '');
    });
  });
}

const HOW_TO_FIX =
  'Install the project dependencies (they ship ffmpeg in @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe), ' +
  'put ffmpeg/ffprobe on PATH, or point FIDELITY_FFMPEG / FIDELITY_FFPROBE at working binaries.';

/**
 * Picks the first candidate. An explicit choice (option or env) that does not
 * run is an error rather than a silent fall-through: the user asked for it.
 */
export async function resolveBinary(kind: BinaryKind, options: ResolveOptions = {}): Promise<BinaryIdentity> {
  const candidates = binaryCandidates(kind, options);
  const first = candidates[0];
  if (!first) {
    throw new FidelityError('FFMPEG_NOT_FOUND', `No ${kind} binary found. ${HOW_TO_FIX}`);
  }
  let version: string;
  try {
    version = await runVersion(first.path);
  } catch (cause) {
    throw new FidelityError(
      'FFMPEG_BROKEN',
      `The ${kind} binary from ${first.source} (${first.path}) does not run: ${(cause as Error).message.split('\n')[0]}. ${HOW_TO_FIX}`,
      { cause },
    );
  }
  if (!version.startsWith(`${kind} version`)) {
    throw new FidelityError(
      'FFMPEG_BROKEN',
      `The ${kind} binary from ${first.source} (${first.path}) printed "${version}" instead of a ${kind} version line. ${HOW_TO_FIX}`,
    );
  }
  return { kind, source: first.source, path: first.path, version, sha256: await sha256File(first.path) };
}

export interface FfmpegToolchain {
  ffmpeg: BinaryIdentity;
  ffprobe: BinaryIdentity;
}

const cache = new Map<string, Promise<FfmpegToolchain>>();

/** Resolves both binaries once per distinct option set; the identity goes into every report. */
export function resolveFfmpeg(options: ResolveOptions = {}): Promise<FfmpegToolchain> {
  const env = options.env ?? process.env;
  const key = JSON.stringify([options.ffmpegPath, options.ffprobePath, env.FIDELITY_FFMPEG, env.FIDELITY_FFPROBE, env.PATH]);
  let hit = cache.get(key);
  if (!hit) {
    hit = Promise.all([resolveBinary('ffmpeg', options), resolveBinary('ffprobe', options)]).then(([ffmpeg, ffprobe]) => ({ ffmpeg, ffprobe }));
    hit.catch(() => cache.delete(key));
    cache.set(key, hit);
  }
  return hit;
}
