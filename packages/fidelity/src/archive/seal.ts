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

/** A command that writes a valid SHA256SUMS at a run's root (docs/run-archive.md, "SHA256SUMS: the seal"). */
export const SEAL_COMMAND = "find . -type f ! -path ./SHA256SUMS -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 sha256sum > SHA256SUMS";

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
  // `find . | xargs sha256sum` names every file "./path": one hint for all of them, not an error per line and per file.
  const dotted: number[] = [];
  let dottedSelf = false;
  // sha256sum ends its output with a newline: the empty piece after it is not a line.
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((content, i) => {
    const where = { file: SEAL_FILE, line: i + 1 };
    const match = LINE.exec(content);
    if (!match) {
      findings.error('SEAL_MALFORMED_LINE', `line ${i + 1} is not "<64 lowercase hex>  <path>": ${malformedReason(content)}`, where);
      return;
    }
    const [, sha256, named] = match as unknown as [string, string, string];
    let file = named;
    if (named.startsWith('./') && pathFault(named.slice(2)) === null) {
      dotted.push(i + 1);
      file = named.slice(2);
      // The same command also listed the SHA256SUMS it was writing into: part of the same hint.
      if (file === SEAL_FILE) {
        dottedSelf = true;
        return;
      }
    }
    const fault = pathFault(file);
    if (fault === 'absolute') return findings.error('SEAL_ABSOLUTE_PATH', `line ${i + 1} names the absolute path ${shown(file)}`, where);
    if (fault === 'traversal') return findings.error('SEAL_PATH_TRAVERSAL', `line ${i + 1} names ${shown(file)}, which climbs out with ".."`, where);
    if (fault) return findings.error('SEAL_MALFORMED_LINE', `line ${i + 1} names ${shown(file)}, which is not a canonical relative path ("/" separators, no "./", no empty segments)`, where);
    if (file === SEAL_FILE) return findings.error('SEAL_LISTS_ITSELF', `line ${i + 1} lists SHA256SUMS itself`, where);
    const first = seal.get(file);
    if (first) return findings.error('SEAL_DUPLICATE_LINE', `line ${i + 1} lists ${shown(file)} again (first on line ${first.line})`, where);
    seal.set(file, { line: i + 1, sha256, path: file });
  });
  if (dotted.length > 0) {
    const which = dotted.length <= 5 ? dotted.join(', ') : `${dotted.slice(0, 5).join(', ')} and ${dotted.length - 5} more`;
    findings.error(
      'SEAL_MALFORMED_LINE',
      `${dotted.length} line${dotted.length === 1 ? '' : 's'} of SHA256SUMS (${which}) name${dotted.length === 1 ? 's' : ''} a path with a "./" prefix` +
        `${dottedSelf ? ' and SHA256SUMS lists itself' : ''}, as "find . -type f | xargs sha256sum" writes; paths are relative without "./", and SHA256SUMS lists every file but itself. ` +
        `Write it at the run's root with: ${SEAL_COMMAND} (docs/run-archive.md, "SHA256SUMS: the seal")`,
      { file: SEAL_FILE, line: dotted[0]! },
    );
  }
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
