/**
 * The contract between archive/ (which produces a verified run) and the
 * stages after it (pairing, measuring, bundling). Data parts are zod-derived
 * types; the handle parts (media access, close) are runtime objects.
 */
import type { CiJson, PlanJson, RunJson, RunRecord } from '../schemas/run-archive.js';
import type { Problem } from '../errors.js';

export type ArchiveKind = 'directory' | 'zip' | 'tar.gz';

export interface RunLinks {
  /** {server_url}/{repository}/actions/runs/{run_id}/attempts/{run_attempt} */
  run: string;
  /** {server_url}/{repository}/actions/runs/{run_id}/artifacts/{artifact.id} */
  artifact: string;
}

export interface DigestCheck {
  /** Whether a `<archive>.sha256` file was found and compared. Directories have no artifact digest. */
  checked: boolean;
  /** The archive file's own SHA-256 (zip / tar.gz only). */
  archive_sha256: string | null;
  expected: string | null;
  /** The sidecar file that was read (`<archive>.sha256`), null when there was none. */
  file: string | null;
}

export interface MediaEntry {
  slot_id: string;
  /** The path inside the archive, as sealed (e.g. media/measurement-r000-c000.mp4). */
  path: string;
  size: number;
  /** From the seal, and re-verified while verifying. */
  sha256: string;
}

export interface VerifiedRun {
  source: { path: string; kind: ArchiveKind };
  ci: CiJson;
  plan: PlanJson;
  run: RunJson;
  /** SHA-256 of the plan.json bytes. */
  plan_sha256: string;
  links: RunLinks;
  digest: DigestCheck;
  /** The raw bytes of the metadata files, for the bundle's sources/ folder. */
  files: { 'ci.json': Buffer; 'plan.json': Buffer; 'run.json': Buffer; SHA256SUMS: Buffer };
  /** Optional telemetry, raw (null when the archive has none). */
  telemetry: { gpu_metrics_csv: Buffer | null; server_timing_jsonl: Buffer | null };
  /** Records in run.json order. */
  records: RunRecord[];
  /** Media of every ok record, by slot id. */
  media: Map<string, MediaEntry>;
  /**
   * A real file path for ffmpeg to read (and seek in). Directories give the
   * original file; zip / tar.gz entries are copied into a temp folder the run
   * owns, re-hashed on the way, and removed by close().
   */
  mediaPath(slotId: string): Promise<string>;
  /** Removes every temp file this run created. Safe to call twice. */
  close(): Promise<void>;
}

/** Size limits a user can raise; exceeding one refuses the archive before (zip, folder) or while (tar.gz) it is read. */
export interface ArchiveLimits {
  /** Regular files in the archive (default 4000). */
  maxFiles: number;
  /** Bytes of one file (default 512 MiB). */
  maxFileBytes: number;
  /** Bytes of all files together (default 2 GiB). */
  maxTotalBytes: number;
  /** Bytes of one metadata file (ci/plan/run.json, SHA256SUMS, telemetry), which is read into memory (default 64 MiB). */
  maxMetadataBytes: number;
  /** Entries of every kind: files, folders, links, anything else (default 10000). */
  maxEntries: number;
  /**
   * Bytes a .tar.gz may inflate to, tar headers and padding included (default 2 GiB + 64 MiB;
   * when only maxTotalBytes is raised, this follows it: maxTotalBytes + 64 MiB).
   */
  maxDecompressedBytes: number;
  /**
   * Most inflated bytes per compressed byte (default 100): a .tar.gz stream once past 16 MiB
   * inflated, and each zip entry of 16 MiB or more. Video does not compress; a bomb does.
   */
  maxCompressionRatio: number;
}

export interface VerifyOptions {
  /** Makes a missing `<archive>.sha256` (and any folder, which cannot have one) an error. */
  requireDigest?: boolean;
  limits?: Partial<ArchiveLimits>;
  /** Where the run's temp folder is made (default os.tmpdir()). */
  tempDir?: string;
  signal?: AbortSignal;
}

/** What a person (or the CLI) wants to know about one verified run, in one plain object. */
export interface RunSummary {
  source: { path: string; kind: ArchiveKind };
  site: string;
  repository: string;
  workflow: string;
  job: string;
  run_id: number;
  run_attempt: number;
  head_sha: string;
  artifact: { id: number; name: string };
  hardware: CiJson['hardware'];
  plan: { plan_id: string; plan_sha256: string; cases: number; repetitions: number; warmup_runs: number };
  slots: {
    planned: number;
    warmup: { ok: number; failed: number };
    measurement: { ok: number; failed: number };
  };
  digest: DigestCheck;
  links: RunLinks;
}

export type VerifyResult = { ok: true; run: VerifiedRun; warnings: Problem[] } | { ok: false; problems: Problem[] };
