/**
 * The names a decoder process reads its inputs under (docs/metrics.md, "Clip validity"). ffmpeg
 * prints an input's url in its log (`URL: corrupt decoded frame in stream 0`, `Input #0, ... from
 * 'URL'`), and the decoder's log is read line by line (decoder-log.ts): a file name holding a newline
 * and a line of ffmpeg's own form would be read as that line. So no name a user chose reaches the
 * process: each input is a symbolic link `0.mp4`, `1.mp4`, ... (its index and, when it is plain
 * letters and digits, the file's own extension, which ffmpeg's format probe weighs) in a folder of
 * its own, and the process runs in that folder, so its urls are those names and nothing else.
 * Two sides of one file get two links: every line names one side.
 *
 * The folder is removed once the process has exited, and at the latest when this process exits;
 * it is a temp folder of temp.ts (`fidelity-inputs-<host tag>-<pid>-XXXXXX`), so a later process
 * sweeps it up when this one was killed outright, and a TMPDIR where it cannot be made or written
 * is TEMP_NOT_WRITABLE.
 */
import { link, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeTempDir, removeTempDirSync, tempFailure } from '../temp.js';

/** A process's inputs as links in a folder of their own. */
export interface InputLinks {
  /** The folder: the process's working directory. */
  readonly dir: string;
  /** Each input's url, relative to `dir`, in order: `0.mp4`, `1.mp4`, ... */
  readonly urls: string[];
  /** Removes the folder, at once (safe to call twice): done before a scope's close() returns. */
  remove(): void;
}

const live = new Set<string>();
let hooked = false;

/** Extensions kept on a link: plain letters and digits only, so that a link's name is ours. */
const PLAIN_EXTENSION = /^\.[A-Za-z0-9]{1,12}$/;

/** The url of input `index` of file `file`: its index and, when plain, its extension. */
export function inputLinkName(index: number, file: string): string {
  const ext = path.extname(file);
  return `${index}${PLAIN_EXTENSION.test(ext) ? ext : ''}`;
}

/**
 * Links `files` under names made here ({@link inputLinkName}), in a new folder under the OS temp
 * folder. A symbolic link where the system allows one, else a hard link.
 */
export async function linkInputs(files: readonly string[]): Promise<InputLinks> {
  const dir = await makeTempDir(undefined, 'inputs');
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    removeTempDirSync(dir);
  };
  try {
    const urls = files.map((file, i) => inputLinkName(i, file));
    for (const [i, file] of files.entries()) {
      const at = path.join(dir, urls[i]!);
      // A link to a missing file is still made: ffmpeg then reports the file as missing, as before.
      await symlink(path.resolve(file), at).catch(async (error: unknown) => {
        await link(path.resolve(file), at).catch(() => {
          throw tempFailure(error, os.tmpdir(), 'making a link');
        });
      });
    }
    return { dir, urls, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** A binary named by a relative path still names the same file from another working directory. */
export function binaryFromAnywhere(file: string): string {
  return file.includes('/') || file.includes('\\') ? path.resolve(file) : file;
}
