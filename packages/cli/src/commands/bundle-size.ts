/**
 * The size of a written bundle, for the summary line: every file SHA256SUMS
 * seals plus SHA256SUMS itself, and the part of it that is the source MP4s
 * (media/), so a reader sees what the report adds on top of the videos.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BundleSize {
  total: number;
  media: number;
}

/** Reads `<out>/SHA256SUMS`; null when it cannot be read (the summary then leaves the size out). */
export function bundleSize(out: string): BundleSize | null {
  let sums: string;
  try {
    sums = readFileSync(path.join(out, 'SHA256SUMS'), 'utf8');
  } catch {
    return null;
  }
  let total = Buffer.byteLength(sums);
  let media = 0;
  for (const line of sums.split('\n')) {
    // "<64 hex>  <path>" (sha256sum text mode) or "<64 hex> *<path>".
    const m = /^[0-9a-f]{64} [ *](.+)$/.exec(line);
    if (!m) continue;
    const rel = m[1]!;
    try {
      const size = statSync(path.join(out, ...rel.split('/'))).size;
      total += size;
      if (rel.startsWith('media/')) media += size;
    } catch {
      return null;
    }
  }
  return { total, media };
}

/** Bytes as MB (10^6) with one decimal, or kB below 1 MB. */
export function sizeText(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}

/**
 * "12.3 MB, of which source MP4s 10.1 MB (+21.8%)". When the rest outweighs the MP4s (tiny clips,
 * as in the demo), it says what the rest is, so "+1763.3%" does not read as a bundle that grows
 * with the media: the pages, report.json and per-pair pictures are about the same size for a
 * clip of a second as for a minute.
 */
export function bundleSizeText(size: BundleSize): string {
  const ratio = size.media > 0 ? (size.total - size.media) / size.media : 0;
  const extra = size.media > 0 ? ` (+${(ratio * 100).toFixed(1)}%${ratio > 1 ? ': mostly the pages, report.json and per-pair stills, which outweigh clips this short' : ''})` : '';
  return `${sizeText(size.total)}, of which source MP4s ${sizeText(size.media)}${extra}`;
}
