/**
 * SHA256SUMS, read strictly: `<64 lowercase hex><two spaces><path>` per line,
 * paths canonical and relative. The seal must list every other file of the
 * archive exactly once, and each file must hash to its line.
 */
import { Findings, shown } from './findings.js';
import { pathFault } from './entry-path.js';
import { SEAL_FILE } from './layout.js';
import type { Inventory } from './inventory.js';

export interface SealLine {
  line: number;
  sha256: string;
  path: string;
}

const LINE = /^([0-9a-f]{64}) {2}(.+)$/;

export function parseSeal(bytes: Buffer, findings: Findings): Map<string, SealLine> {
  const seal = new Map<string, SealLine>();
  let text: string;
  try {
    // ignoreBOM keeps a byte order mark in the text, where it makes line 1 malformed; by default it would vanish unseen.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    findings.error('SEAL_MALFORMED_LINE', 'SHA256SUMS is not valid UTF-8', { file: SEAL_FILE });
    text = bytes.toString('utf8');
  }
  const lines = text.split('\n');
  // sha256sum ends its output with a newline: the empty piece after it is not a line.
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((content, i) => {
    const where = { file: SEAL_FILE, line: i + 1 };
    const match = LINE.exec(content);
    if (!match) {
      findings.error('SEAL_MALFORMED_LINE', `line ${i + 1} is not "<64 lowercase hex>  <path>": ${malformedReason(content)}`, where);
      return;
    }
    const [, sha256, file] = match as unknown as [string, string, string];
    const fault = pathFault(file);
    if (fault === 'absolute') return findings.error('SEAL_ABSOLUTE_PATH', `line ${i + 1} names the absolute path ${shown(file)}`, where);
    if (fault === 'traversal') return findings.error('SEAL_PATH_TRAVERSAL', `line ${i + 1} names ${shown(file)}, which climbs out with ".."`, where);
    if (fault) return findings.error('SEAL_MALFORMED_LINE', `line ${i + 1} names ${shown(file)}, which is not a canonical relative path ("/" separators, no "./", no empty segments)`, where);
    if (file === SEAL_FILE) return findings.error('SEAL_LISTS_ITSELF', `line ${i + 1} lists SHA256SUMS itself`, where);
    const first = seal.get(file);
    if (first) return findings.error('SEAL_DUPLICATE_LINE', `line ${i + 1} lists ${shown(file)} again (first on line ${first.line})`, where);
    seal.set(file, { line: i + 1, sha256, path: file });
  });
  return seal;
}

function malformedReason(line: string): string {
  if (line === '') return 'empty line';
  if (line.endsWith('\r')) return 'CRLF line ending';
  if (line.charCodeAt(0) === 0xfeff) return 'byte order mark';
  if (/^[0-9a-fA-F]{64} {2}/.test(line)) return 'digest is not lowercase';
  if (/^[0-9a-f]{64} \*/.test(line)) return 'binary-mode "*" marker';
  if (/^\\/.test(line)) return 'escaped name';
  if (/^[0-9a-fA-F]{64}/.test(line)) return `separator is not two spaces: ${shown(line, 90)}`;
  return shown(line, 90);
}

/** Inventory against seal: missing, extra, mismatched. */
export function checkSeal(seal: Map<string, SealLine>, inventory: Inventory, findings: Findings): void {
  for (const entry of seal.values()) {
    const file = inventory.files.get(entry.path);
    if (!file) {
      findings.error('SEAL_MISSING_FILE', `SHA256SUMS lists ${shown(entry.path)}, which is not in the archive`, { file: SEAL_FILE, line: entry.line });
    } else if (file.sha256 !== null && file.sha256 !== entry.sha256) {
      findings.error('SEAL_HASH_MISMATCH', `${shown(entry.path)} hashes to ${file.sha256}, SHA256SUMS line ${entry.line} says ${entry.sha256}`, { file: entry.path });
    }
  }
  for (const file of inventory.files.values()) {
    if (file.path !== SEAL_FILE && !seal.has(file.path)) {
      findings.error('SEAL_EXTRA_FILE', `${shown(file.path)} is in the archive but not listed in SHA256SUMS`, { file: file.path });
    }
  }
}
