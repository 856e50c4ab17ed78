/**
 * Where the JUnit file and the job summary go. Both are decided before any
 * run is read, like `--out` (output/out-guard.ts): not a folder or a
 * symbolic link, not inside `--out` (the bundle is sealed, and replaced
 * whole) or an input (runs and partials are read-only and sealed), not the
 * same file twice, and in a folder this process can really write. The JUnit
 * file is written only once the bundle is (never on a refusal), atomically:
 * a temp file beside it, synced, renamed over it. The summary is appended,
 * never rewritten: other steps of the job write to the same file.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, lstat, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeDurable } from '../output/files.js';
import { makeFolders, realPathOf } from '../output/out-guard.js';
import { inputIdentities, outputPathProblem, targetClash } from '../output/targets.js';
import { FidelityError } from '../errors.js';
import { ownerTag } from '../owner.js';

/** The CI files of a compare or merge: `junit` (written) and `summary` (appended); each optional. */
export interface CiOutputs {
  junit?: string;
  summary?: string;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const refuse = (message: string, cause?: unknown): FidelityError => new FidelityError('CI_OUTPUT_INVALID', message, cause === undefined ? {} : { cause });

/** The nearest folder of `p` that exists: it must be a folder this process can create files in (tried, not guessed). */
async function probeFolder(option: string, file: string): Promise<void> {
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    const st = await lstat(dir).catch(() => null);
    if (st) {
      if (!st.isDirectory()) throw refuse(`${option} ${file}: ${dir} is not a folder`);
      break;
    }
    const up = path.dirname(dir);
    if (up === dir) throw refuse(`${option} ${file}: no folder on its path exists`);
    dir = up;
  }
  const probe = path.join(dir, `.fidelity-probe-${ownerTag()}-${randomBytes(4).toString('hex')}`);
  try {
    await (await open(probe, 'wx')).close();
    await unlink(probe);
  } catch (error) {
    throw refuse(`${option} ${file}: cannot write in ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, error);
  }
}

/**
 * Refuses, before any work, a JUnit or summary file whose name or path is past the limits or ends
 * in `/` (`OUT_PATH_INVALID`), or that names a folder or link, lies inside `out` or an input, is an
 * input's file by device and inode (a hard link) or a file beside an input archive, is given twice,
 * or cannot be written (`CI_OUTPUT_INVALID`).
 */
export async function checkCiOutputs(outputs: CiOutputs, context: { out: string; inputs: readonly string[] }): Promise<void> {
  const given = (
    [
      ['--junit', outputs.junit],
      ['the job summary', outputs.summary],
    ] as const
  ).filter((e): e is ['--junit' | 'the job summary', string] => typeof e[1] === 'string');
  const reals: string[] = [];
  // Limits first (output/targets.ts): a name the file system cannot hold would otherwise fail after the whole comparison.
  for (const [option, file] of given) {
    if (file.length === 0) throw refuse(`${option}: an empty path`);
    const tooLong = await outputPathProblem(file, 'file');
    if (tooLong) throw new FidelityError('OUT_PATH_INVALID', `${option} ${file} ${tooLong}; choose a shorter path`);
  }
  const ids = await inputIdentities(context.inputs);
  for (const [option, file] of given) {
    const st = await lstat(file).catch(() => null);
    if (st?.isSymbolicLink()) throw refuse(`${option} ${file} is a symbolic link; give the real file`);
    if (st && !st.isFile()) throw refuse(`${option} ${file} exists and is not a file`);
    const real = await realPathOf(file).catch(() => path.resolve(file));
    const out = await realPathOf(context.out).catch(() => path.resolve(context.out));
    if (isInside(real, out)) throw refuse(`${option} ${file} lies inside --out ${context.out}: the bundle is sealed and replaced whole; write it next to the bundle`);
    for (const input of context.inputs) {
      const i = await realPathOf(input).catch(() => path.resolve(input));
      if (isInside(real, i)) throw refuse(`${option} ${file} lies inside the input ${input}; inputs are read-only`);
    }
    // By device and inode too: a hard link of an input archive or of a run's ci.json, the digest or provenance file beside an input.
    const clash = await targetClash(option, file, 'file', ids);
    if (clash) throw refuse(clash.message);
    const id = st ? `${st.dev}:${st.ino}` : real;
    if (reals.includes(real) || reals.includes(id)) throw refuse(`--junit and the job summary are the same file ${file}`);
    reals.push(real, id);
    if (st && option === 'the job summary') {
      // An existing summary is appended to: opening it for appending is the test (nothing is written).
      await open(file, 'a').then((h) => h.close(), (error: unknown) => Promise.reject(refuse(`the job summary ${file} cannot be appended to (${(error as NodeJS.ErrnoException).code})`, error)));
    } else await probeFolder(option, file);
  }
}

/** Writes the JUnit file atomically: a temp file in the same folder, synced, renamed over `file`. */
export async function writeJunitFile(file: string, xml: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.fidelity-tmp-${ownerTag()}-${randomBytes(4).toString('hex')}`);
  try {
    await writeDurable(temp, xml);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw refuse(`--junit ${file} could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the bundle itself is complete`, error);
  }
}

/**
 * Appends the summary in one write (O_APPEND): what other steps wrote stays. Missing folders on
 * its path are made first, as for `--junit` (checkCiOutputs found the nearest existing one writable).
 */
export async function appendJobSummary(file: string, markdown: string): Promise<void> {
  try {
    await makeFolders(path.dirname(path.resolve(file)));
    await appendFile(file, markdown);
  } catch (error) {
    throw refuse(`the job summary ${file} could not be appended to (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, error);
  }
}
