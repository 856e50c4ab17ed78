/**
 * Reading a partial back: find it, check its seal the way verify-bundle
 * checks a bundle's (every file listed, hashed, nothing else, no links), and
 * parse partial.json against its schema.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { walk } from '../output/files.js';
import { parseSeal, SEAL_FILE } from '../output/seal.js';
import type { Problem } from '../errors.js';
import { sha256File } from '../hash.js';
import { parseStrictJson, readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { PARTIAL_FILE, ShardPartial } from './schema.js';

/** A partial whose seal and schema were checked. */
export interface LoadedPartial {
  /** The folder, as found (the --partials value or one of its subfolders). */
  dir: string;
  doc: ShardPartial;
  /** Sealed files: folder-relative path -> sha256. */
  sealed: Map<string, string>;
}

async function isDir(p: string): Promise<boolean> {
  const st = await lstat(p).catch(() => null);
  return Boolean(st?.isDirectory());
}

/**
 * A --partials value is a partial (it holds partial.json) or a folder of
 * partials (its subfolders that hold one, in name order; hidden ones, such
 * as an unfinished shard's temp folder, are skipped).
 */
export async function findPartials(given: string): Promise<{ dirs: string[]; problems: Problem[] }> {
  if (!(await isDir(given))) return { dirs: [], problems: [{ code: 'PARTIAL_UNREADABLE', message: `partial ${given} is not a folder`, where: { file: given } }] };
  if ((await lstat(path.join(given, PARTIAL_FILE)).catch(() => null)) !== null) return { dirs: [given], problems: [] };
  const dirs: string[] = [];
  for (const name of (await readdir(given)).sort()) {
    const sub = path.join(given, name);
    if (name.startsWith('.') || !(await isDir(sub))) continue;
    if ((await lstat(path.join(sub, PARTIAL_FILE)).catch(() => null)) !== null) dirs.push(sub);
  }
  if (dirs.length === 0) {
    return { dirs, problems: [{ code: 'PARTIAL_UNREADABLE', message: `${given} is neither a partial (no ${PARTIAL_FILE}) nor a folder of partials`, where: { file: given } }] };
  }
  return { dirs, problems: [] };
}

/** Checks one partial's seal and schema; problems name the partial. */
export async function readPartial(dir: string): Promise<{ partial: LoadedPartial | null; problems: Problem[] }> {
  const problems: Problem[] = [];
  const seal = (message: string, file?: string): void => {
    problems.push({ code: 'PARTIAL_SEAL', message: `partial ${dir}: ${message}`, where: { file: file ? `${dir}/${file}` : dir } });
  };
  // The seal is a side file: a symbolic link is refused, never followed; a FIFO is refused, never waited on.
  const sealRead = await readSideFile(path.join(dir, SEAL_FILE), SIDE_FILE_LIMITS.seal);
  if (!sealRead.ok) {
    seal(sealRead.why === 'missing' ? `has no ${SEAL_FILE}; it is not a finished partial` : `${SEAL_FILE} ${sealRead.message}`, SEAL_FILE);
    return { partial: null, problems };
  }
  const parsed = parseSeal(sealRead.bytes.toString('utf8'));
  for (const p of parsed.problems) seal(p.message, SEAL_FILE);
  const sealed = new Map(parsed.entries.map((e) => [e.path, e.sha256]));
  const present = new Set<string>();
  for (const e of await walk(dir)) {
    if (e.kind === 'directory' || e.path === SEAL_FILE) continue;
    if (e.kind === 'other') {
      seal(`${e.path} is a link or special file`, e.path);
      continue;
    }
    present.add(e.path);
    const expected = sealed.get(e.path);
    if (expected === undefined) seal(`${e.path} is not listed in ${SEAL_FILE}`, e.path);
    else if ((await sha256File(path.join(dir, ...e.path.split('/')))) !== expected) seal(`${e.path} does not hash to its ${SEAL_FILE} line`, e.path);
  }
  for (const p of sealed.keys()) if (!present.has(p)) seal(`${p} is listed in ${SEAL_FILE} but missing`, p);
  if (problems.length) return { partial: null, problems };

  // Bounded and strict: a key given twice would be read one way here and another way by the next reader.
  const read = await readSideFile(path.join(dir, PARTIAL_FILE), SIDE_FILE_LIMITS.partial);
  const json = read.ok ? parseStrictJson(read.bytes) : { ok: false as const, message: read.message };
  if (!json.ok) {
    problems.push({ code: 'PARTIAL_UNREADABLE', message: `partial ${dir}: ${PARTIAL_FILE} ${json.message}`, where: { file: `${dir}/${PARTIAL_FILE}` } });
    return { partial: null, problems };
  }
  const doc = json.value;
  const result = ShardPartial.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue ? `$${issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}` : '$';
    problems.push({
      code: 'PARTIAL_UNREADABLE',
      message: `partial ${dir}: ${PARTIAL_FILE} does not match schema_version 1 (${where}: ${issue?.message ?? 'invalid'})`,
      where: { file: `${dir}/${PARTIAL_FILE}`, path: where },
    });
    return { partial: null, problems };
  }
  return { partial: { dir, doc: result.data, sealed }, problems };
}
