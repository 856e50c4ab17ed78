/**
 * Output files (not folders) a command writes, e.g. `calibrate --out` and
 * `--policy-out`, guarded as `--out` folders are (out-guard.ts):
 * - decided before any work, on real paths through every link: never inside
 *   an input run, never an input archive or the digest or provenance file
 *   beside one, never two outputs in one file;
 * - an existing file is replaced only when it is this command's own earlier
 *   output (the caller says how to recognise one), otherwise only with force;
 * - written atomically: every file to a temp name beside it, synced, and
 *   renamed into place only once all are written and the command was not
 *   stopped; a full disk or a read-only folder is OUT_NOT_WRITABLE and
 *   leaves every output as it was.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { lstat, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isInside, makeFolders, outputError, realPathOf } from './out-guard.js';
import { BESIDE_INPUT, inputIdentities, outputPathProblem, targetClash } from './targets.js';
import { FidelityError } from '../errors.js';
import { ownerTag } from '../owner.js';
import { readSideFile } from '../side-file.js';

/** One output file and how to recognise this command's own earlier output there. */
export interface OutFile {
  file: string;
  /** The option that names it, for messages (`--out`, `--policy-out`). */
  option: string;
  /** True when the bytes at `file` are an earlier output of this command, which it may replace without force. */
  isOurs: (bytes: Buffer) => boolean;
  /** Bound on the bytes read to recognise it. */
  maxBytes: number;
}

/** Files beside an archive that belong to it (docs/run-archive.md: the digest; docs/provenance.md: the provider's record). */
const SIDECARS: readonly string[] = BESIDE_INPUT;

/**
 * Refuses, before any work, an output that is inside an input run (or is an
 * input archive or one of its side files), two outputs that are one file
 * however they are spelled, a folder, a folder that cannot be written, and an
 * existing file that is not the command's own earlier output unless `force`.
 *
 * Names and paths past the limits (output/targets.ts) and outputs that are
 * an input's file by device and inode (a hard link) are refused too.
 *
 * @throws FidelityError OUT_PATH_INVALID, OUT_INSIDE_INPUT, OUT_EXISTS, OUT_NOT_WRITABLE, USAGE.
 */
export async function checkOutFiles(outputs: readonly OutFile[], inputs: readonly string[], force: boolean): Promise<void> {
  const real = new Map<string, OutFile>();
  // Name and path limits of every output first: nothing else is worth checking on a path that cannot be written.
  for (const o of outputs) {
    const tooLong = await outputPathProblem(o.file, 'file');
    if (tooLong) throw new FidelityError('OUT_PATH_INVALID', `${o.option} ${o.file} ${tooLong}; choose a shorter path`);
  }
  const ids = await inputIdentities(inputs);
  for (const o of outputs) {
    let r: string;
    try {
      r = await realPathOf(o.file);
    } catch (error) {
      throw new FidelityError('OUT_NOT_WRITABLE', `${o.option} ${o.file} cannot be reached (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose another path`, { cause: error });
    }
    const same = real.get(r);
    if (same) throw new FidelityError('USAGE', `${same.option} ${same.file} and ${o.option} ${o.file} are the same file${r === path.resolve(o.file) ? '' : ` (really ${r})`}: give two files`);
    real.set(r, o);
    for (const input of inputs) {
      const i = await realPathOf(input).catch(() => path.resolve(input));
      const really = r === path.resolve(o.file) ? '' : ` (really ${r})`;
      if (isInside(r, i)) throw new FidelityError('OUT_INSIDE_INPUT', `${o.option} ${o.file}${really} ${r === i ? 'is' : 'lies inside'} the input run ${input}; runs are read-only`);
      const side = SIDECARS.find((s) => r === `${i}${s}`);
      if (side) throw new FidelityError('OUT_INSIDE_INPUT', `${o.option} ${o.file}${really} is the ${side === '.sha256' ? 'digest' : 'provenance'} file of the input run ${input}; runs are read-only`);
    }
    // Paths miss a hard link of an input's file and a bind mount of an input folder: the same check by device and inode.
    const clash = await targetClash(o.option, o.file, 'file', ids);
    if (clash) throw new FidelityError('OUT_INSIDE_INPUT', clash.message);
    await checkWritable(o, r);
    const info = await lstat(o.file).catch(() => null);
    if (!info) continue;
    if (info.isDirectory()) throw new FidelityError('OUT_EXISTS', `${o.option} ${o.file} is a folder; give the path of a file`);
    if (force) continue;
    const read = info.isFile() ? await readSideFile(o.file, o.maxBytes) : null;
    if (read?.ok && o.isOurs(read.bytes)) continue;
    const what = info.isSymbolicLink() ? 'a symbolic link' : info.isFile() ? 'a file this command did not write' : 'not a regular file';
    throw new FidelityError('OUT_EXISTS', `${o.option} ${o.file} exists and is ${what}; choose another path or pass --force to replace it`);
  }
}

/**
 * Whether the output's folder can be written, found out by really creating a
 * file there (the nearest folder that exists, when the path's folders are
 * still to be made), not by asking for permission bits: a read-only or
 * immutable folder, a file where a folder belongs, /proc.
 */
async function checkWritable(o: OutFile, real: string): Promise<void> {
  let dir = path.dirname(real);
  for (;;) {
    const info = await lstat(dir).catch(() => null);
    if (info) {
      if (!info.isDirectory()) throw new FidelityError('OUT_NOT_WRITABLE', `${o.option} ${o.file} cannot be written: ${dir} is not a folder; choose another path`);
      break;
    }
    if (path.dirname(dir) === dir) break;
    dir = path.dirname(dir);
  }
  const probe = path.join(dir, `.${path.basename(real)}.fidelity-probe-${ownerTag()}-${randomBytes(4).toString('hex')}`);
  try {
    await (await open(probe, 'wx')).close();
  } catch (error) {
    throw new FidelityError('OUT_NOT_WRITABLE', `${o.option} ${o.file} cannot be written: ${dir} is not a writable folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); choose another path`, { cause: error });
  }
  await rm(probe, { force: true });
}

/** Temp files being written, removed by one exit hook if the process ends first (a forced stop). */
const removeAtExit = new Set<string>();
let exitHooked = false;

/**
 * Writes every file to a temp name beside it, then renames them all into
 * place: nothing is replaced unless every file was written, and nothing
 * after `signal` aborts (ABORTED). Missing parent folders are made, and
 * removed again on failure.
 *
 * @throws FidelityError OUT_NOT_WRITABLE (a full disk, a read-only folder), ABORTED.
 */
export async function writeOutFiles(files: readonly { file: string; option: string; text: string }[], signal?: AbortSignal): Promise<void> {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const t of removeAtExit) rmSync(t, { force: true });
    });
  }
  const temps: string[] = [];
  const made: string[] = [];
  const ours = (p: string): boolean => temps.includes(p) || files.some((f) => path.resolve(f.file) === p || isInside(path.dirname(path.resolve(f.file)), p));
  let current = files[0]!;
  let renamed = 0;
  try {
    for (const f of files) {
      current = f;
      const target = path.resolve(f.file);
      const top = await makeFolders(path.dirname(target));
      if (top) made.unshift(top);
      const temp = path.join(path.dirname(target), `.${path.basename(target)}.fidelity-tmp-${ownerTag()}-${randomBytes(4).toString('hex')}`);
      temps.push(temp);
      removeAtExit.add(temp);
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(f.text);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    if (signal?.aborted) throw new FidelityError('ABORTED', `stopped before ${files.map((f) => f.option).join(' and ')} were put in place; they are as they were`);
    for (const [i, f] of files.entries()) {
      current = f;
      await rename(temps[i]!, path.resolve(f.file));
      renamed++;
      removeAtExit.delete(temps[i]!);
    }
  } catch (error) {
    await Promise.all(temps.map((t) => rm(t, { force: true })));
    // The folders made for the outputs hold only their temp files, unless one was already put in place.
    if (renamed === 0) for (const d of made) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    throw outputError(error, `${current.option} ${current.file}`, ours) ?? error;
  } finally {
    for (const t of temps) removeAtExit.delete(t);
  }
}
