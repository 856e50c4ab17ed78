/**
 * The contract between archive/ (which produces a verified run) and the
 * stages after it (pairing, measuring, bundling). Data parts are zod-derived
 * types; the handle parts (media access, close) are runtime objects.
 */
import type { CiJson, CiProvider, PlanJson, RunJson, RunRecord } from '../schemas/run-archive.js';
import type { Problem } from '../errors.js';
import type { Provenance } from '../provider/schema.js';

/** The form a run archive came in. */
export type ArchiveKind = 'directory' | 'zip' | 'tar.gz';

/**
 * The canonical links back to a run and its artifact, per provider (docs/run-archive.md, "ci.json");
 * null where the provider has no page to link to (`other`): a link is never invented.
 */
export interface RunLinks {
  /** GitHub: {server_url}/{repository}/actions/runs/{run_id}/attempts/{run_attempt}; GitLab: {server_url}/{project_path}/-/jobs/{run_id}. */
  run: string | null;
  /** GitHub: {server_url}/{repository}/actions/runs/{run_id}/artifacts/{artifact.id}; GitLab: {server_url}/{project_path}/-/jobs/{run_id}/artifacts/browse. */
  artifact: string | null;
  /** GitLab only: {server_url}/{project_path}/-/pipelines/{pipeline_id}. */
  pipeline?: string;
}

/** Who produced a run, in the same fields for every CI provider (describeCi); null where the provider has no such thing. */
export interface CiDescription {
  provider: CiProvider;
  /** The CI server (GitHub, GitLab); null for `other`. */
  server_url: string | null;
  /** GitHub `owner/name`, GitLab project path, or an `other` ci.json's free text; null when none. */
  repository: string | null;
  /** GitHub's workflow, or an `other` ci.json's free text; null for GitLab and when none. */
  workflow: string | null;
  job: string;
  /** GitHub: the workflow run id; GitLab: the job id; other: the run number given. */
  run_id: number;
  run_attempt: number;
  head_sha: string;
  /** `id`: GitHub's artifact id; null for providers without one. */
  artifact: { id: number | null; name: string };
  /** GitLab only: the project and pipeline ids. */
  gitlab?: { project_id: number; pipeline_id: number };
  /** `other` only: the free-text reference to the run. */
  run_ref?: string;
}

/** Whether the artifact digest (`<archive>.sha256`) was checked, and what it was. */
export interface DigestCheck {
  /** Whether a `<archive>.sha256` file was found and compared. Directories have no artifact digest. */
  checked: boolean;
  /** The archive file's own SHA-256 (zip / tar.gz only). */
  archive_sha256: string | null;
  expected: string | null;
  /** The sidecar file that was read (`<archive>.sha256`), null when there was none. */
  file: string | null;
}

/** Who vouches for the run's identity (docs/provenance.md). */
export interface ProvenanceCheck {
  /** `provider`: a provenance file from fidelity fetch is beside the zip and the archive agrees with it; `self`: only the archive's own files. */
  attested_by: 'provider' | 'self';
  /** The `<archive>.provenance.json` that was read, null when there was none. */
  file: string | null;
  /** What the provider said, as fetch recorded it. */
  record: Provenance | null;
}

/** One verified media file of a run: its slot, path inside the archive, sealed SHA-256 and size. */
export interface MediaEntry {
  slot_id: string;
  /** The path inside the archive, as sealed (e.g. media/measurement-r000-c000.mp4). */
  path: string;
  size: number;
  /** From the seal, and re-verified while verifying. */
  sha256: string;
}

/**
 * A run that passed verification: its parsed ci.json, plan.json and run.json, its media, links and
 * digest check. `mediaPath` gives a readable file path for a slot's MP4 (extracted to a temporary
 * folder for a zip or tar.gz); `close()` removes those files.
 */
export interface VerifiedRun {
  source: { path: string; kind: ArchiveKind };
  ci: CiJson;
  plan: PlanJson;
  run: RunJson;
  /** SHA-256 of the plan.json bytes. */
  plan_sha256: string;
  links: RunLinks;
  digest: DigestCheck;
  provenance: ProvenanceCheck;
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
  /**
   * Checks that the file `mediaPath` gave for a slot is still the one verified (a folder's file) or
   * copied out (a zip's or tar.gz's): same device, inode, size, modification and inode change time
   * (docs/media.md, "Media that change"). Call it after the file's last use; measuring and the bundle do.
   *
   * @throws FidelityError `MEDIA_CHANGED` when it is not (a write since, even of the same bytes, even undone).
   */
  checkMedia(slotId: string): Promise<void>;
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

/** Options of {@link verifyRun} and {@link openVerifiedRun}. */
export interface VerifyOptions {
  /** Makes a missing `<archive>.sha256` (and any folder, which cannot have one) an error. */
  requireDigest?: boolean;
  /**
   * Makes a run without a provenance file from `fetchRun` beside its zip an
   * error (folders and tar.gz never have one). A provenance file that is
   * present is always checked, with or without this.
   */
  requireProvider?: boolean;
  /** Bounds on what an archive may hold (entries, sizes, ratios); each one not given is {@link DEFAULT_LIMITS}'s. */
  limits?: Partial<ArchiveLimits>;
  /** Where the run's temp folder is made (default os.tmpdir()). */
  tempDir?: string;
  /** Cancels: the promise rejects with a FidelityError `ABORTED`. */
  signal?: AbortSignal;
}

/** What a person (or the CLI) wants to know about one verified run, in one plain object. */
export interface RunSummary extends CiDescription {
  source: { path: string; kind: ArchiveKind };
  site: string;
  hardware: CiJson['hardware'];
  plan: { plan_id: string; plan_sha256: string; cases: number; repetitions: number; warmup_runs: number };
  slots: {
    planned: number;
    warmup: { ok: number; failed: number };
    measurement: { ok: number; failed: number };
  };
  digest: DigestCheck;
  /** Who vouches for the identity above: the CI provider, or the archive itself. */
  provenance: { attested_by: 'provider' | 'self'; file: string | null };
  links: RunLinks;
}

/**
 * What {@link verifyRun} resolves with: the verified run and any warnings, or every problem found
 * (each with a reason code from docs/reason-codes.md and where it was found).
 */
export type VerifyResult = { ok: true; run: VerifiedRun; warnings: Problem[] } | { ok: false; problems: Problem[] };
