/**
 * Writes the seal of a run folder: `sha256sum` lines over every other file,
 * sorted by path so that the same folder always gives the same SHA256SUMS.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256File } from '../hash.js';

export const SEAL_FILE = 'SHA256SUMS';

/** Every regular file under `dir`, as sorted `/`-separated relative paths. */
export async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  // A hand-rolled walk: readdir's recursive mode and Dirent.parentPath are not in every Node 20.
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  // Code-unit order, not localeCompare: the seal must not depend on the machine's locale.
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function writeSeal(dir: string): Promise<string> {
  const files = (await listFiles(dir)).filter((f) => f !== SEAL_FILE);
  const lines: string[] = [];
  for (const f of files) lines.push(`${await sha256File(path.join(dir, f))}  ${f}`);
  const text = `${lines.join('\n')}\n`;
  await writeFile(path.join(dir, SEAL_FILE), text);
  return text;
}
