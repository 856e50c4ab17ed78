/**
 * The files compare writes, by place and by kind, and a check that a file's
 * bytes are the kind its name says. verify-bundle holds a bundle to it, and
 * merge a shard's partial: a sealed .html or .svg page of someone's own, a
 * PNG named .webp or a text named .flac is refused, whatever its seal says.
 *
 * The byte checks are the formats' containers, not this tool's encoders: a
 * FLAC is `fLaC` and a STREAMINFO block, whichever encoder wrote it; a WebP a
 * RIFF/WEBP whose size is the file's; a PNG its signature, IHDR first and IEND
 * last; an MP4 an ISO BMFF box; a CSV, JSON or seal UTF-8 text without
 * control characters.
 */
import { IDENTICAL_STILL_NAME, PAIR_FILE_KEYS, PAIR_FILE_NAMES } from './assets-keys.js';

/** What a file of a bundle is. */
export type FileKind = 'html' | 'json' | 'seal' | 'mp4' | 'webp' | 'png' | 'flac' | 'csv';

const RUN = String.raw`\d+-\d+`;
const SLOT = String.raw`measurement-r\d+-c\d+`;

/** File name inside a pair's folder -> kind (frames.csv and the assets of assets-keys.ts). */
const PAIR_FILES: Record<string, FileKind> = {
  'frames.csv': 'csv',
  [IDENTICAL_STILL_NAME]: 'webp',
  ...Object.fromEntries(Object.values(PAIR_FILE_NAMES).map((name) => [name, name.slice(name.lastIndexOf('.') + 1) as FileKind])),
};

/** Every place compare writes a file (docs/report.md, "The bundle"), with its kind. */
const PLACES: readonly { pattern: RegExp; kind: (p: string) => FileKind | null }[] = [
  { pattern: /^index(\.zh)?\.html$/, kind: () => 'html' },
  { pattern: /^(report|report\.schema|calibration)\.json$/, kind: () => 'json' },
  { pattern: /^media\/[0-9a-f]{64}\.mp4$/, kind: () => 'mp4' },
  { pattern: new RegExp(`^sources/${RUN}/(ci|plan|run)\\.json$`), kind: () => 'json' },
  { pattern: new RegExp(`^sources/${RUN}/original-SHA256SUMS$`), kind: () => 'seal' },
  { pattern: new RegExp(`^power/${RUN}\\.json$`), kind: () => 'json' },
  { pattern: new RegExp(`^pairs/${RUN}/${SLOT}/[^/]+$`), kind: (p) => PAIR_FILES[p.slice(p.lastIndexOf('/') + 1)] ?? null },
];

/** The kind of a bundle-relative path compare writes there; null for a path it never writes. */
export function bundleFileKind(rel: string): FileKind | null {
  for (const place of PLACES) if (place.pattern.test(rel)) return place.kind(rel);
  return null;
}

const ascii = (bytes: Uint8Array, at: number, text: string): boolean => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const u32be = (b: Uint8Array, at: number): number => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
const u32le = (b: Uint8Array, at: number): number => b[at]! + (b[at + 1]! << 8) + (b[at + 2]! << 16) + ((b[at + 3]! << 24) >>> 0);

/** Top-level ISO BMFF boxes a file may begin with. */
const FIRST_BOXES = new Set(['ftyp', 'styp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pdin', 'uuid']);

/** UTF-8 text with no control character but tab, newline and carriage return. */
function isText(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
}

/** Why `bytes` are not a file of `kind`, or null when they are. */
export function fileKindProblem(kind: FileKind, bytes: Uint8Array): string | null {
  switch (kind) {
    case 'webp':
      if (!ascii(bytes, 0, 'RIFF') || !ascii(bytes, 8, 'WEBP')) return 'is not a WebP (no RIFF/WEBP header)';
      if (u32le(bytes, 4) + 8 !== bytes.length) return 'is not a whole WebP (its RIFF size is not the file size)';
      if (!['VP8 ', 'VP8L', 'VP8X'].some((c) => ascii(bytes, 12, c))) return 'is not a WebP (no VP8 chunk)';
      return null;
    case 'png': {
      const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
      if (bytes.length < 8 + 25 + 12 || signature.some((v, i) => bytes[i] !== v)) return 'is not a PNG (no PNG signature)';
      if (u32be(bytes, 8) !== 13 || !ascii(bytes, 12, 'IHDR')) return 'is not a PNG (IHDR is not its first chunk)';
      if (u32be(bytes, bytes.length - 12) !== 0 || !ascii(bytes, bytes.length - 8, 'IEND')) return 'is not a whole PNG (it does not end with IEND)';
      return null;
    }
    case 'flac':
      // The container only: "fLaC", then a STREAMINFO metadata block (type 0, 34 bytes) with a sample rate and channels.
      if (!ascii(bytes, 0, 'fLaC')) return 'is not a FLAC (no fLaC marker)';
      if (bytes.length < 8 + 34 || (bytes[4]! & 0x7f) !== 0 || ((bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) !== 34) return 'is not a FLAC (no STREAMINFO block first)';
      if (((bytes[18]! << 12) | (bytes[19]! << 4) | (bytes[20]! >> 4)) === 0) return 'is not a FLAC (STREAMINFO has no sample rate)';
      return null;
    case 'mp4':
      if (bytes.length < 8 || u32be(bytes, 0) < 8 || !FIRST_BOXES.has(String.fromCharCode(...bytes.subarray(4, 8)))) return 'is not an MP4 (no ISO BMFF box first)';
      return null;
    case 'csv':
    case 'json':
    case 'seal':
      return isText(bytes) ? null : 'is not UTF-8 text without control characters';
    case 'html':
      // Pages are judged whole by scan.ts.
      return null;
  }
}

/** The file a pair's `files` key may name inside the pair's folder: its only name (frames.csv, or the asset's), or the shared still. */
export function pairFileNames(key: string): string[] | null {
  if (key === PAIR_FILE_KEYS.framesCsv) return ['frames.csv'];
  const name = (PAIR_FILE_NAMES as Record<string, string>)[key];
  if (name === undefined) return null;
  return key === PAIR_FILE_KEYS.baselineWorst || key === PAIR_FILE_KEYS.candidateWorst ? [name, IDENTICAL_STILL_NAME] : [name];
}

/**
 * Why a pair's `files` map is not one compare writes, or null: every key one
 * of PAIR_FILE_KEYS, each naming its own file in the pair's folder `prefix`
 * (the two worst-frame stills may both name the one still of a bit-identical
 * pair, and then no difference picture or heat map exists).
 */
export function pairFilesProblem(files: Record<string, string>, prefix: string): string | null {
  for (const [key, file] of Object.entries(files)) {
    const names = pairFileNames(key);
    if (!names) return `names the file key ${JSON.stringify(key)}, which compare never writes`;
    if (!names.some((n) => file === `${prefix}/${n}`)) return `names ${JSON.stringify(file)} for ${key}; compare writes ${names.map((n) => `${prefix}/${n}`).join(' or ')}`;
  }
  const still = `${prefix}/${IDENTICAL_STILL_NAME}`;
  const shared = [files[PAIR_FILE_KEYS.baselineWorst], files[PAIR_FILE_KEYS.candidateWorst]].filter((f) => f === still).length;
  if (shared === 1) return `only one worst-frame key names ${IDENTICAL_STILL_NAME}, the still both share when every frame is identical`;
  if (shared === 2 && (files[PAIR_FILE_KEYS.absDiff] !== undefined || files[PAIR_FILE_KEYS.heatmap] !== undefined)) return 'has a difference picture for frames it says are identical';
  return null;
}
