/**
 * The bundle's SHA256SUMS: `sha256sum` format, one line per file, sorted by
 * path (plain code-unit order, so it never depends on a locale), every file
 * of the bundle except itself.
 */
import type { Problem } from '../errors.js';

export const SEAL_FILE = 'SHA256SUMS';

export interface SealEntry {
  path: string;
  sha256: string;
}

export function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function formatSeal(entries: readonly SealEntry[]): string {
  return [...entries]
    .sort((a, b) => byPath(a.path, b.path))
    .map((e) => `${e.sha256}  ${e.path}\n`)
    .join('');
}

/** A path a seal may name: relative, `/`-separated, no `.` or `..` steps, no empty steps. */
export function isSafeRelativePath(p: string): boolean {
  if (p.length === 0 || p.startsWith('/') || p.includes('\\') || /^[A-Za-z]:/.test(p)) return false;
  return p.split('/').every((step) => step !== '' && step !== '.' && step !== '..');
}

const LINE = /^([0-9a-f]{64}) {2}(.+)$/;

export function parseSeal(text: string): { entries: SealEntry[]; problems: Problem[] } {
  const entries: SealEntry[] = [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else problems.push({ code: 'BUNDLE_SEAL_MALFORMED', message: 'SHA256SUMS does not end with a newline', where: { file: SEAL_FILE } });
  lines.forEach((line, i) => {
    const where = { file: SEAL_FILE, line: i + 1 };
    const m = LINE.exec(line);
    if (!m) {
      problems.push({ code: 'BUNDLE_SEAL_MALFORMED', message: `line ${i + 1} is not "<64 lowercase hex>  <path>": ${JSON.stringify(line.slice(0, 120))}`, where });
      return;
    }
    const [, sha256, path] = m as unknown as [string, string, string];
    if (!isSafeRelativePath(path)) {
      problems.push({ code: 'BUNDLE_SEAL_MALFORMED', message: `line ${i + 1} names an unsafe path ${JSON.stringify(path)}`, where });
      return;
    }
    if (path === SEAL_FILE) {
      problems.push({ code: 'BUNDLE_SEAL_MALFORMED', message: `line ${i + 1}: SHA256SUMS cannot list itself`, where });
      return;
    }
    if (seen.has(path)) {
      problems.push({ code: 'BUNDLE_SEAL_MALFORMED', message: `line ${i + 1} lists ${path} a second time`, where });
      return;
    }
    seen.add(path);
    entries.push({ path, sha256 });
  });
  return { entries, problems };
}
