/**
 * `<artifact>.zip.provenance.json`: what the CI provider said about a run and
 * its artifact when `fetchRun` downloaded it (docs/provenance.md). It is a
 * record of the provider's answers, kept beside the zip so that `verifyRun`
 * can check the archive against them later without any network.
 *
 * Field names follow GitHub's REST API where they copy it, so a reader can
 * hold the file next to the API's documentation.
 */
import { z } from 'zod';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');
const Timestamp = z.string().nullable();

/** One API request fetch made, in order, with the response's own `date` header. */
export const ProviderRequest = z.object({
  method: z.literal('GET'),
  /** The API URL asked (never a signed download URL: those carry a credential and are recorded without their query). */
  url: z.string(),
  status: z.number().int(),
  /** The response's `date` header: the provider's clock, not ours. */
  date: z.string().nullable(),
});
export type ProviderRequest = z.infer<typeof ProviderRequest>;

/** The workflow run as the provider's API described it (provenance.json `run`). */
export const ProvenanceRun = z.object({
  id: z.number().int().positive(),
  run_attempt: z.number().int().min(1),
  /** The run's latest attempt when it was fetched (a re-run makes it larger than run_attempt). */
  latest_attempt: z.number().int().min(1),
  run_number: z.number().int().nullable(),
  name: z.string().nullable(),
  display_title: z.string().nullable(),
  /** The workflow file, as GitHub reports it (e.g. `.github/workflows/bench.yml`). */
  path: z.string().nullable(),
  workflow_id: z.number().int().nullable(),
  event: z.string().nullable(),
  head_sha: z.string(),
  head_branch: z.string().nullable(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  url: z.string(),
  html_url: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  run_started_at: Timestamp,
});
export type ProvenanceRun = z.infer<typeof ProvenanceRun>;

/** The artifact as the provider's API described it, with the digest it recorded at upload (provenance.json `artifact`). */
export const ProvenanceArtifact = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  size_in_bytes: z.number().int().nonnegative(),
  /** GitHub's `digest`: "sha256:<64 hex>" of the zip, computed when it was uploaded. */
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected "sha256:<64 lowercase hex>"'),
  url: z.string(),
  archive_download_url: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  expires_at: Timestamp,
  expired: z.boolean(),
  /** The run GitHub files the artifact under, as the artifact itself reports it. */
  workflow_run: z
    .object({ id: z.number().int().nullable(), head_sha: z.string().nullable(), head_branch: z.string().nullable(), repository_id: z.number().int().nullable() })
    .nullable(),
});
export type ProvenanceArtifact = z.infer<typeof ProvenanceArtifact>;

/** `<name>.zip.provenance.json`: what the CI provider said about a fetched run and its artifact (docs/provenance.md). */
export const Provenance = z.object({
  schema_version: z.literal(1),
  kind: z.literal('fidelity-provenance'),
  /** The tool that fetched it. */
  tool: z.object({ name: z.literal('fidelity'), version: z.string() }),
  /** When the download finished, by the fetching machine's clock. */
  fetched_at: z.string(),
  provider: z.object({
    name: z.literal('github'),
    /** The REST API root that answered (https://api.github.com, or a GitHub Enterprise `/api/v3`). */
    api_url: z.string(),
    /** The web server of the run, taken from the run's html_url: it must equal ci.json's server_url. */
    server_url: z.string(),
  }),
  /** owner/name as the provider spells it, and its numeric id. */
  repository: z.object({ full_name: z.string(), id: z.number().int().nullable(), html_url: z.string().nullable() }),
  run: ProvenanceRun,
  /** The artifact downloaded: the zip the digest vouches for. */
  artifact: ProvenanceArtifact,
  /**
   * The artifact ci.json names, when it is not the one downloaded: the run's
   * files uploaded first (whose id ci.json records), while the sealed archive
   * with ci.json is `<that name>-archive` (docs/run-archive.md, "Producing an
   * archive"). Absent or null when the one artifact is both.
   */
  named_artifact: ProvenanceArtifact.nullable().optional(),
  /** What was downloaded: the file name written and its SHA-256, which equals the artifact digest. */
  download: z.object({
    file: z.string(),
    sha256: Sha256Hex,
    size: z.number().int().nonnegative(),
    /** The download location the API redirected to, without its query (the query is a short-lived credential). */
    redirected_to: z.string().nullable(),
  }),
  requests: z.array(ProviderRequest),
});
export type Provenance = z.infer<typeof Provenance>;

/** The JSON Schema of the provenance file (docs/provenance.schema.json is this, committed). */
export function provenanceJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(Provenance) as Record<string, unknown>;
}

/** The provenance file that belongs to an archive file: `<archive>.provenance.json`. */
export function provenancePath(archive: string): string {
  return `${archive}.provenance.json`;
}
