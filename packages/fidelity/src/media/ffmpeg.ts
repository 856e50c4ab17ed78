/**
 * The one place that decides which ffmpeg and ffprobe binaries run, and that
 * reports what they are. Everything else asks this module; nothing else reads
 * FIDELITY_FFMPEG or looks at npm packages.
 *
 * ffmpeg and ffprobe always come from the same place, because both parse the
 * same untrusted MP4s and a report names one decoder. Places, in order:
 * explicit options -> FIDELITY_FFMPEG / FIDELITY_FFPROBE -> the first PATH
 * folder that holds both, when they are one build (the same version line) ->
 * the npm packages @ffmpeg-installer + @ffprobe-installer. When only one of a
 * pair is given (one option, one variable), the other is the file of that
 * name in the same folder, or nothing runs.
 *
 * A maintained build on PATH (a distribution's ffmpeg, a CI runner's) comes
 * before the npm packages: both binaries parse untrusted MP4s, and the npm
 * pair is a 2018 ffmpeg beside a 2023 ffprobe. The metrics do not depend on
 * the choice where it matters: rgb24 is our own conversion and the Y planes
 * are the H.264 decoder's, the same bytes from any build. `fidelity doctor`
 * says when the npm pair runs (old, two builds) and why PATH's was passed over.
 */
import { execFile } from 'node:child_process';
import { existsSync, accessSync, constants as fsConstants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FidelityError } from '../errors.js';
import { sha256File } from '../hash.js';
import { childEnv } from './child-env.js';

/** Which of the two binaries: `ffmpeg` decodes, `ffprobe` reads stream properties. */
export type BinaryKind = 'ffmpeg' | 'ffprobe';
/** Where a pair came from: a {@link ResolveOptions} path, FIDELITY_FFMPEG / FIDELITY_FFPROBE, the npm packages, or PATH. */
export type BinarySource = 'option' | 'env' | 'installer' | 'path';

/** One place a binary could come from, before anything was run. */
export interface BinaryCandidate {
  source: BinarySource;
  path: string;
}

/**
 * A binary that ran: where it came from, its path, its `-version` line and the SHA-256 of its file (recorded in every report).
 */
export interface BinaryIdentity {
  kind: BinaryKind;
  source: BinarySource;
  path: string;
  /** The first line of `-version`, e.g. "ffmpeg version 4.1 ...". */
  version: string;
  sha256: string;
}

/**
 * Where to take ffmpeg and ffprobe from. Both paths given: those two. One given: the other binary of
 * that name in the same folder. Neither: FIDELITY_FFMPEG / FIDELITY_FFPROBE (same rule), then the npm
 * packages, then the first PATH folder holding both. `env` replaces `process.env` for the lookup.
 */
export interface ResolveOptions {
  /** The ffmpeg binary to use (a path); ffprobe is then the one beside it unless `ffprobePath` is given. */
  ffmpegPath?: string;
  /** The ffprobe binary to use (a path); ffmpeg is then the one beside it unless `ffmpegPath` is given. */
  ffprobePath?: string;
  /** The environment the lookup reads (FIDELITY_FFMPEG, FIDELITY_FFPROBE, PATH) instead of `process.env`. */
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

/** One place both binaries come from; `derived` names the one that was not given but looked for beside the other. */
export interface ToolchainCandidate {
  source: BinarySource;
  ffmpeg: string;
  ffprobe: string;
  derived?: BinaryKind;
}

function explicitPair(source: BinarySource, ffmpeg: string | undefined, ffprobe: string | undefined): ToolchainCandidate | undefined {
  if (ffmpeg && ffprobe) return { source, ffmpeg, ffprobe };
  if (ffmpeg) return { source, ffmpeg, ffprobe: path.join(path.dirname(ffmpeg), 'ffprobe'), derived: 'ffprobe' };
  if (ffprobe) return { source, ffmpeg: path.join(path.dirname(ffprobe), 'ffmpeg'), ffprobe, derived: 'ffmpeg' };
  return undefined;
}

/**
 * Every place a matched ffmpeg + ffprobe pair could come from, in priority order, without running
 * anything: options, environment, the first PATH folder holding both, the npm packages. An
 * explicit pair (options, then environment) is listed even when its files do not exist: the caller
 * asked for it, and {@link resolveFfmpeg} says why it does not run. {@link resolveFfmpeg} passes
 * over the PATH pair when its two binaries are not one build (or do not run) and an npm pair exists.
 */
export function toolchainCandidates(options: ResolveOptions = {}): ToolchainCandidate[] {
  const env = options.env ?? process.env;
  const out: ToolchainCandidate[] = [];
  const option = explicitPair('option', options.ffmpegPath, options.ffprobePath);
  if (option) out.push(option);
  const fromEnv = explicitPair('env', env.FIDELITY_FFMPEG || undefined, env.FIDELITY_FFPROBE || undefined);
  if (fromEnv) out.push(fromEnv);
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const pair = { ffmpeg: path.join(dir, 'ffmpeg'), ffprobe: path.join(dir, 'ffprobe') };
    if (isExecutableFile(pair.ffmpeg) && isExecutableFile(pair.ffprobe)) {
      out.push({ source: 'path', ...pair });
      break;
    }
  }
  const ffmpeg = tryRequirePath('@ffmpeg-installer/ffmpeg', (m) => (m as { path?: string }).path);
  const ffprobe = tryRequirePath('@ffprobe-installer/ffprobe', (m) => (m as { path?: string }).path);
  if (ffmpeg && ffprobe && existsSync(ffmpeg) && existsSync(ffprobe)) out.push({ source: 'installer', ffmpeg, ffprobe });
  return out;
}

/** Every place one binary could come from, in priority order: the `kind` half of {@link toolchainCandidates}. */
export function binaryCandidates(kind: BinaryKind, options: ResolveOptions = {}): BinaryCandidate[] {
  return toolchainCandidates(options).map((c) => ({ source: c.source, path: c[kind] }));
}

function runVersion(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, ['-hide_banner', '-version'], { env: childEnv(), timeout: 15_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.split('\n')[0]?.trim() ?? '');
    });
  });
}

const HOW_TO_FIX =
  'Install the project dependencies (they ship ffmpeg in @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe), ' +
  'put a folder holding both ffmpeg and ffprobe on PATH, or point FIDELITY_FFMPEG and FIDELITY_FFPROBE at two binaries of the same build ' +
  '(on Debian/Ubuntu: apt-get install ffmpeg, then FIDELITY_FFMPEG=/usr/bin/ffmpeg FIDELITY_FFPROBE=/usr/bin/ffprobe).';

function firstCandidate(options: ResolveOptions): ToolchainCandidate {
  const first = toolchainCandidates(options)[0];
  if (!first) {
    const env = options.env ?? process.env;
    const lone = ['ffmpeg', 'ffprobe'].filter((k) => findOnPath(k, env));
    const hint = lone.length === 1 ? ` (PATH has ${lone[0]} but no folder on it holds both, and they are never mixed)` : '';
    throw new FidelityError('FFMPEG_NOT_FOUND', `No ffmpeg + ffprobe pair found${hint}. ${HOW_TO_FIX}`);
  }
  return first;
}

async function identify(kind: BinaryKind, c: ToolchainCandidate): Promise<BinaryIdentity> {
  const file = c[kind];
  if (c.derived === kind && !existsSync(file)) {
    const other: BinaryKind = kind === 'ffmpeg' ? 'ffprobe' : 'ffmpeg';
    const given = c.source === 'env' ? `FIDELITY_${other.toUpperCase()}` : `the ${other}Path option`;
    const missing = c.source === 'env' ? `FIDELITY_${kind.toUpperCase()}` : `${kind}Path`;
    throw new FidelityError(
      'FFMPEG_NOT_FOUND',
      `${given} is set but ${missing} is not, and there is no ${kind} beside it (${file}). ffmpeg and ffprobe are always taken from the same build: set both, or put ${kind} in that folder. ${HOW_TO_FIX}`,
    );
  }
  let version: string;
  try {
    version = await runVersion(file);
  } catch (cause) {
    throw new FidelityError(
      'FFMPEG_BROKEN',
      `The ${kind} binary from ${c.source} (${file}) does not run: ${(cause as Error).message.split('\n')[0]}. ${HOW_TO_FIX}`,
      { cause },
    );
  }
  if (!version.startsWith(`${kind} version`)) {
    throw new FidelityError(
      'FFMPEG_BROKEN',
      `The ${kind} binary from ${c.source} (${file}) printed "${version}" instead of a ${kind} version line. ${HOW_TO_FIX}`,
    );
  }
  return { kind, source: c.source, path: file, version, sha256: await sha256File(file) };
}

/**
 * Resolves one binary of the pair {@link resolveFfmpeg} would use. An explicit choice (option or
 * environment) that does not run is an error rather than a silent fall-through: the user asked for it.
 *
 * @throws FidelityError `FFMPEG_NOT_FOUND` when no pair exists (or only half of an explicit pair),
 *   `FFMPEG_BROKEN` when the binary does not run or is not the kind asked for.
 */
export async function resolveBinary(kind: BinaryKind, options: ResolveOptions = {}): Promise<BinaryIdentity> {
  const first = firstCandidate(options);
  // PATH's pair may be passed over for the npm one: the same choice as resolveFfmpeg.
  return first.source === 'path' ? (await resolveFfmpeg(options))[kind] : identify(kind, first);
}

/** The resolved pair; both always come from the same source (`ffmpeg.source === ffprobe.source`). */
export interface FfmpegToolchain {
  ffmpeg: BinaryIdentity;
  ffprobe: BinaryIdentity;
  /** A place tried before this one and passed over (the PATH pair, when it was not one build), with why: `fidelity doctor` says it. */
  passedOver?: { source: BinarySource; ffmpeg: string; ffprobe: string; reason: string }[];
}

/** The version token of a `-version` line: "5.1.9-0+deb12u1" of "ffmpeg version 5.1.9-0+deb12u1 Copyright ...". */
function versionToken(line: string): string {
  return /^\S+ version (\S+)/.exec(line)?.[1] ?? '';
}

/** Both binaries of a candidate, ffmpeg first (so a broken explicit ffmpeg is reported before a missing ffprobe beside it). */
async function identifyPair(c: ToolchainCandidate): Promise<FfmpegToolchain> {
  // Both binaries at once: each check is a process start and a hash (about 0.15 s of wall time apiece
  // for Debian's build, which loads a hundred libraries). ffmpeg's failure is still the one reported first.
  const [ffmpeg, ffprobe] = await Promise.allSettled([identify('ffmpeg', c), identify('ffprobe', c)]);
  if (ffmpeg.status === 'rejected') throw ffmpeg.reason;
  if (ffprobe.status === 'rejected') throw ffprobe.reason;
  return { ffmpeg: ffmpeg.value, ffprobe: ffprobe.value };
}

/**
 * The first candidate that runs. Explicit ones (options, environment) are taken as they are, or
 * fail: the user asked for them. The PATH pair is taken when both run and print the same version
 * (one build); otherwise the npm pair after it is used, and the reason is kept for doctor. With no
 * npm pair left, the PATH pair is used as it is (doctor warns when the two differ).
 */
async function resolvePair(options: ResolveOptions): Promise<FfmpegToolchain> {
  const list = toolchainCandidates(options);
  const first = firstCandidate(options);
  if (first.source !== 'path') return identifyPair(first);
  const fallback = list.find((c) => c.source === 'installer');
  let reason: string;
  try {
    const pair = await identifyPair(first);
    const [a, b] = [versionToken(pair.ffmpeg.version), versionToken(pair.ffprobe.version)];
    if (a !== '' && a === b) return pair;
    if (!fallback) return pair;
    reason = `ffmpeg (${a || pair.ffmpeg.version}) and ffprobe (${b || pair.ffprobe.version}) on PATH are not one build`;
  } catch (error) {
    if (!fallback) throw error;
    reason = (error as Error).message.split('. ')[0] ?? 'it does not run';
  }
  const chosen = await identifyPair(fallback);
  return { ...chosen, passedOver: [{ source: 'path', ffmpeg: first.ffmpeg, ffprobe: first.ffprobe, reason }] };
}

/**
 * Resolved pairs by the options that chose them, each with the stamps of the files it was resolved
 * from: a binary replaced or rewritten at the same path (another build at one FIDELITY_FFMPEG) is
 * another file, so it is identified (run and hashed) again.
 */
const cache = new Map<string, { stamps: string; toolchain: Promise<FfmpegToolchain> }>();

/** The options and environment that choose the pair. */
function optionsKey(options: ResolveOptions): string {
  const env = options.env ?? process.env;
  return JSON.stringify([options.ffmpegPath, options.ffprobePath, env.FIDELITY_FFMPEG, env.FIDELITY_FFPROBE, env.PATH]);
}

/** A file's device, inode, size, modification and inode change time ('-' when it cannot be looked at). */
function fileStamp(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return '-';
  }
}

/** The stamps of every binary a resolution with these options may run, in candidate order. */
function candidateStamps(options: ResolveOptions): string {
  return toolchainCandidates(options)
    .map((c) => `${fileStamp(c.ffmpeg)},${fileStamp(c.ffprobe)}`)
    .join(';');
}

/**
 * Resolves the ffmpeg + ffprobe pair once per distinct option set and binary files (a binary
 * replaced at the same path, told by its device, inode, size, modification and inode change time,
 * is resolved again) and reports what they are: source, path, version line and SHA-256 of each
 * (the decoder identity every report records). Order: options, FIDELITY_FFMPEG / FIDELITY_FFPROBE,
 * the first PATH folder holding both when they are one build, the npm packages.
 *
 * @throws FidelityError `FFMPEG_NOT_FOUND` when no pair exists (or only half of an explicit pair, with
 *   no matching binary beside it), `FFMPEG_BROKEN` when a binary does not run or is not what it claims.
 * @example
 * ```ts
 * const { ffmpeg, ffprobe } = await resolveFfmpeg({ env: { ...process.env, FIDELITY_FFMPEG: '/usr/bin/ffmpeg' } });
 * console.log(ffmpeg.source, ffmpeg.version, ffprobe.path); // env, ffmpeg version 5.1..., /usr/bin/ffprobe
 * ```
 */
export function resolveFfmpeg(options: ResolveOptions = {}): Promise<FfmpegToolchain> {
  const key = optionsKey(options);
  const stamps = candidateStamps(options);
  const hit = cache.get(key);
  if (hit && hit.stamps === stamps) return hit.toolchain;
  const toolchain = resolvePair(options);
  const entry = { stamps, toolchain };
  toolchain.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  cache.set(key, entry);
  return toolchain;
}

/**
 * Seeds this thread's resolveFfmpeg cache with a toolchain another thread already resolved for the
 * same options (the measuring pool's workers): the worker then does not run `-version` on both
 * binaries and hash them again (about 70 MB each for the bundled build, 0.2 s of CPU apiece) for
 * every worker thread. The identity is the one report.json records either way.
 */
export function adoptToolchain(options: ResolveOptions, toolchain: FfmpegToolchain): void {
  const key = optionsKey(options);
  if (!cache.has(key)) cache.set(key, { stamps: candidateStamps(options), toolchain: Promise.resolve(toolchain) });
}
