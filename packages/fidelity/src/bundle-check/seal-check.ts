/**
 * A bundle's seal, checked: every file under the folder is listed in
 * SHA256SUMS exactly once and hashes to its line, nothing is missing, and
 * nothing else is there (no unlisted file, link or special file). Shared by
 * verify-bundle, which goes on to judge the pages and links, and by diff,
 * which reads report.json only from a bundle whose seal holds.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Problem } from '../errors.js';
import { sha256File } from '../hash.js';
import { readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { walk } from '../output/files.js';
import { parseSeal, SEAL_FILE, type SealEntry } from '../output/seal.js';

/** What checking a bundle's seal found. */
export type SealCheck =
  /** Nothing could be checked: the folder or its SHA256SUMS is missing (the one problem says which). */
  | { stopped: true; problems: Problem[] }
  | {
      stopped: false;
      /** Every problem with the seal (malformed lines, missing, extra or changed files); empty when it holds. */
      problems: Problem[];
      entries: SealEntry[];
      /** Sealed path -> sha256. */
      sealed: Map<string, string>;
      /** Plain files found under the folder (SHA256SUMS excepted). */
      present: Set<string>;
      /** Sealed files that are missing or do not hash to their line: reported once, never read further. */
      failed: Set<string>;
      /** Files re-hashed. */
      files: number;
    };

/** Checks the seal of the bundle in `dir`: every file re-hashed against SHA256SUMS, nothing missing or extra. */
export async function checkBundleSeal(dir: string): Promise<SealCheck> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    return { stopped: true, problems: [{ code: 'BUNDLE_NOT_FOUND', message: `${dir} is not a folder` }] };
  }
  // The seal is read as a side file: a link is not followed, a FIFO not waited on, a huge file not read whole.
  const seal = await readSideFile(path.join(dir, SEAL_FILE), SIDE_FILE_LIMITS.seal);
  if (!seal.ok) {
    const message = seal.why === 'missing' ? `${SEAL_FILE} is missing: nothing can be verified` : `${SEAL_FILE} ${seal.message}: nothing can be verified`;
    return { stopped: true, problems: [{ code: 'BUNDLE_SEAL_MISSING', message, where: { file: SEAL_FILE } }] };
  }
  const problems: Problem[] = [];
  const { entries, problems: malformed } = parseSeal(seal.bytes.toString('utf8'));
  problems.push(...malformed);
  const sealed = new Map(entries.map((e) => [e.path, e.sha256]));

  const present = new Set<string>();
  for (const entry of await walk(dir)) {
    if (entry.kind === 'directory' || entry.path === SEAL_FILE) continue;
    if (entry.kind === 'other') {
      problems.push({ code: 'BUNDLE_FILE_EXTRA', message: `${entry.path} is not a plain file (a link or device has no place in a bundle)`, where: { file: entry.path } });
      continue;
    }
    present.add(entry.path);
    if (!sealed.has(entry.path)) problems.push({ code: 'BUNDLE_FILE_EXTRA', message: `${entry.path} is not listed in ${SEAL_FILE}`, where: { file: entry.path } });
  }
  let files = 0;
  const failed = new Set<string>();
  for (const e of entries) {
    if (!present.has(e.path)) {
      problems.push({ code: 'BUNDLE_FILE_MISSING', message: `${e.path} is listed in ${SEAL_FILE} but missing`, where: { file: e.path } });
      failed.add(e.path);
      continue;
    }
    const actual = await sha256File(path.join(dir, e.path));
    files++;
    if (actual !== e.sha256) {
      problems.push({ code: 'BUNDLE_FILE_CHANGED', message: `${e.path} changed: sealed ${e.sha256}, now ${actual}`, where: { file: e.path } });
      failed.add(e.path);
    }
  }
  return { stopped: false, problems, entries, sealed, present, failed, files };
}
