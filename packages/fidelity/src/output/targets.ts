/**
 * Two checks every output path gets before any work (docs/report.md, "Output
 * paths (every command)"; docs/ci.md, "Where the files may go"):
 *
 * - **Limits.** A name or a path the file system cannot hold fails at the
 *   first write, which for `--junit` comes after the whole comparison. So the
 *   limits are checked first, counting the temp and lock names this tool puts
 *   beside an output (`.<name>.fidelity-…`, up to {@link SIBLING_RESERVE}
 *   bytes more than the name) and, for a folder, the deepest file a bundle
 *   holds ({@link FOLDER_DEPTH_RESERVE}). A file output may not end in `/`.
 *
 * - **Identity.** A path comparison misses a hard link (two names, one file)
 *   and a bind mount (two paths, one folder). So besides the real-path
 *   checks, every output is compared by device and inode with every input:
 *   the input itself, every file and folder under an input folder, and the
 *   files beside it that belong to it (`<input>.sha256`,
 *   `<input>.provenance.json`), which are also refused by path when they do
 *   not exist yet (a file written there would become the input's digest).
 *
 * Nothing is read but names and `stat` results: no run is opened.
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The real path of `p` even when it does not exist yet: the realpath of its
 * nearest existing ancestor, with the missing steps appended.
 */
export async function realPathOf(p: string): Promise<string> {
  let existing = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(existing), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(existing);
      // ENOENT: not there yet; ENOTDIR: a step is a file. Either way the answer is decided further up.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === existing) throw error;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** The longest name most Linux file systems allow (NAME_MAX), in bytes. */
export const NAME_MAX_BYTES = 255;
/** The longest path the kernel takes (PATH_MAX, 4096 with its terminating NUL), in bytes. */
export const PATH_MAX_BYTES = 4095;
/**
 * Bytes the longest name this tool puts beside an output adds to the output's
 * own name: `.<name>.fidelity-lock-stale-<host tag>-<pid>-<random>` is 56 at
 * most (a 10-digit pid); rounded up.
 */
export const SIBLING_RESERVE = 64;
/** Bytes below a bundle or partial folder: `pairs/<run>-<attempt>/measurement-r…-c…/<asset>` and the sources; rounded up. */
export const FOLDER_DEPTH_RESERVE = 256;
/** The longest output name: NAME_MAX less the reserve for the temp and lock names beside it. */
export const MAX_OUTPUT_NAME_BYTES = NAME_MAX_BYTES - SIBLING_RESERVE;
/** Entries of one input folder looked at for identities; more is not a run or partial this tool reads (docs/run-archive.md: 10000 entries). */
const MAX_WALK = 50_000;
/** The files beside an archive that belong to it (docs/run-archive.md: the digest; docs/provenance.md: the provider's record). */
export const BESIDE_INPUT = ['.sha256', '.provenance.json'] as const;

/**
 * Why `file` cannot be an output path, or null: empty, a file output that
 * ends in `/` (or names `.`/`..`), a name longer than
 * {@link MAX_OUTPUT_NAME_BYTES}, a folder on its path longer than
 * {@link NAME_MAX_BYTES}, or a whole path that, with the temp names beside it
 * (and for a folder the files in it), passes {@link PATH_MAX_BYTES}. The
 * lengths are UTF-8 bytes of the absolute path, as spelled and as really
 * reached through links, whichever is longer.
 */
export async function outputPathProblem(file: string, kind: 'file' | 'folder'): Promise<string | null> {
  if (file.length === 0) return 'is empty';
  if (file.includes('\0')) return 'holds a NUL character';
  const name = path.basename(file);
  if (kind === 'file' && file.endsWith('/')) return 'ends with "/", which names a folder; give the path of a file';
  if (kind === 'file' && (name === '.' || name === '..')) return `ends with "${name}", which names a folder; give the path of a file`;
  const resolved = path.resolve(file);
  const real = await realPathOf(file).catch(() => resolved);
  for (const p of [resolved, real]) {
    const steps = p.split(path.sep).filter((s) => s !== '');
    const last = steps.at(-1) ?? '';
    for (const step of steps.slice(0, -1)) {
      const bytes = Buffer.byteLength(step);
      if (bytes > NAME_MAX_BYTES) return `has a folder name of ${bytes} bytes (${shorten(step)}); a name holds at most ${NAME_MAX_BYTES}`;
    }
    const bytes = Buffer.byteLength(last);
    if (bytes > MAX_OUTPUT_NAME_BYTES) {
      return `has a name of ${bytes} bytes (${shorten(last)}); an output name holds at most ${MAX_OUTPUT_NAME_BYTES} (${NAME_MAX_BYTES} less ${SIBLING_RESERVE} for the temp and lock names made beside it)`;
    }
    const room = PATH_MAX_BYTES - SIBLING_RESERVE - (kind === 'folder' ? FOLDER_DEPTH_RESERVE : 0);
    const total = Buffer.byteLength(p);
    if (total > room) {
      return `is ${total} bytes long as an absolute path${p === real && real !== resolved ? ' through its links' : ''}; an output ${kind}'s path holds at most ${room} (${PATH_MAX_BYTES} less ${SIBLING_RESERVE} for the temp names beside it${kind === 'folder' ? ` and ${FOLDER_DEPTH_RESERVE} for the files in it` : ''})`;
    }
  }
  return null;
}

function shorten(s: string): string {
  return s.length > 40 ? `${s.slice(0, 20)}…${s.slice(-12)}` : s;
}

/** What one identity (device and inode) or path of the inputs is. */
interface Owner {
  input: string;
  /** `the input`, `its file ci.json`, `its digest file`... */
  what: string;
}

/** The inputs' identities, gathered once per command by {@link inputIdentities}. */
export interface InputIdentities {
  /** `dev:ino` of every input, every file and folder under an input folder, and the files beside each input. */
  readonly files: ReadonlyMap<string, Owner>;
  /** `dev:ino` of every input folder and the folders under it. */
  readonly folders: ReadonlyMap<string, Owner>;
  /** `dev:ino` of every folder above an input (the input folder itself included): an output folder there would replace the input. */
  readonly above: ReadonlyMap<string, Owner>;
  /** Real paths of the files beside each input, existing or not. */
  readonly beside: ReadonlyMap<string, Owner>;
}

const idOf = (s: { dev: number | bigint; ino: number | bigint }): string => `${s.dev}:${s.ino}`;

/**
 * The identities of `inputs` (runs, partials, policy and calibration files):
 * stat, never read. An input that cannot be reached contributes what can be
 * (its verification refuses it later, with its own code).
 */
export async function inputIdentities(inputs: readonly string[]): Promise<InputIdentities> {
  const files = new Map<string, Owner>();
  const folders = new Map<string, Owner>();
  const above = new Map<string, Owner>();
  const beside = new Map<string, Owner>();
  for (const input of inputs) {
    const top = await stat(input).catch(() => null);
    if (top) {
      files.set(idOf(top), { input, what: 'the input' });
      if (top.isDirectory()) {
        folders.set(idOf(top), { input, what: 'the input' });
        await walkInput(input, input, files, folders);
      }
    }
    // Folders above the input, up to the root: an output folder that is one of them contains the input.
    for (let d = path.resolve(input); ; d = path.dirname(d)) {
      const s = await stat(d).catch(() => null);
      if (s?.isDirectory() && !above.has(idOf(s))) above.set(idOf(s), { input, what: d === path.resolve(input) ? 'the input' : `a folder holding the input (${d})` });
      if (path.dirname(d) === d) break;
    }
    const real = await realPathOf(input).catch(() => path.resolve(input));
    for (const suffix of BESIDE_INPUT) {
      const what = suffix === '.sha256' ? 'its digest file (<archive>.sha256)' : 'its provenance file (<archive>.provenance.json)';
      for (const p of new Set([`${path.resolve(input)}${suffix}`, `${real}${suffix}`])) {
        beside.set(await realPathOf(p).catch(() => p), { input, what });
        const s = await stat(p).catch(() => null);
        if (s) files.set(idOf(s), { input, what });
      }
    }
  }
  return { files, folders, above, beside };
}

async function walkInput(input: string, root: string, files: Map<string, Owner>, folders: Map<string, Owner>): Promise<void> {
  let seen = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (++seen > MAX_WALK) return;
      const p = path.join(dir, name);
      // lstat: a link inside a run is refused by its verification; what it points at is not the run's.
      const s = await lstat(p).catch(() => null);
      if (!s) continue;
      const owner = { input, what: `its ${s.isDirectory() ? 'folder' : 'file'} ${path.relative(root, p).split(path.sep).join('/')}` };
      if (s.isDirectory()) {
        folders.set(idOf(s), owner);
        pending.push(p);
      } else if (!s.isSymbolicLink()) files.set(idOf(s), owner);
    }
  }
}

/** An output that is, or lies inside, or would replace, an input. */
export interface TargetClash {
  /** `inside`: writing it writes an input; `contains`: replacing the output folder deletes an input. */
  kind: 'inside' | 'contains';
  message: string;
}

/**
 * Whether the output `target` (`option` names it in the message) would write
 * into an input or, for a folder output, replace one, by identity: the
 * target is an input's file (a hard link, through any link), a file beside
 * an input, lies in an input folder however that folder is reached (a bind
 * mount), or (folders) is a folder above an input.
 */
export async function targetClash(option: string, target: string, kind: 'file' | 'folder', ids: InputIdentities): Promise<TargetClash | null> {
  const real = await realPathOf(target).catch(() => path.resolve(target));
  const side = ids.beside.get(real);
  if (side) return { kind: 'inside', message: `${option} ${target} is ${side.what} of the input ${side.input}; inputs are read-only` };
  const s = await stat(target).catch(() => null);
  if (s && !s.isDirectory()) {
    const file = ids.files.get(idOf(s));
    if (file) return { kind: 'inside', message: `${option} ${target} is the same file as ${describe(file)} (device ${s.dev}, inode ${s.ino}: a hard link or another path to it); inputs are read-only` };
  }
  // The target folder itself (when it is one), then every folder above it: one of an input's folders, however reached.
  for (let d = s?.isDirectory() ? path.resolve(target) : path.dirname(path.resolve(target)); ; d = path.dirname(d)) {
    const ds = await stat(d).catch(() => null);
    const folder = ds ? ids.folders.get(idOf(ds)) : undefined;
    if (ds && folder) return { kind: 'inside', message: `${option} ${target} lies inside ${describe(folder)} (${d} is device ${ds.dev}, inode ${ds.ino}, another path to it); inputs are read-only` };
    if (path.dirname(d) === d) break;
  }
  if (s?.isDirectory() && kind === 'folder') {
    const up = ids.above.get(idOf(s));
    if (up) return { kind: 'contains', message: `${option} ${target} is the same folder as ${describe(up)} (device ${s.dev}, inode ${s.ino}); replacing it would delete the input` };
  }
  return null;
}

function describe(o: Owner): string {
  return o.what === 'the input' ? `the input ${o.input}` : `${o.what} of the input ${o.input}`;
}
