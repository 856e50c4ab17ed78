/**
 * Provider attestation (docs/provenance.md): `<archive>.provenance.json`,
 * written by `fetchRun` beside the zip it downloaded, records what the CI
 * provider said about the run and the artifact. When it is there, the
 * archive must agree with it (run id and attempt, repository and server,
 * head SHA, artifact name and id, the zip's own SHA-256); when it is not, the
 * run's identity rests on its own files only ("self"), which
 * `requireProvider` refuses. Only local files are read: no network, ever.
 */
import path from 'node:path';
import { z } from 'zod';
import type { CiJson } from '../schemas/run-archive.js';
import { Provenance, provenancePath } from '../provider/schema.js';
import { parseStrictJson, readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { Findings, jsonPath, shown } from './findings.js';
import type { ArchiveKind, DigestCheck, ProvenanceCheck } from './types.js';

export interface ProvenanceFile {
  file: string;
  record: Provenance;
}

/** Reads and parses the provenance file beside a zip; null when there is none (or it is unusable: then findings say why). */
export async function readProvenance(source: string, kind: ArchiveKind, requireProvider: boolean, findings: Findings): Promise<ProvenanceFile | null> {
  const file = provenancePath(source);
  const name = path.basename(file);
  if (kind !== 'zip') {
    // A provider artifact is always a zip: a folder or tar.gz was made from one by someone else, after the provider saw it.
    if (requireProvider) {
      findings.error('PROVENANCE_MISSING', `provider attestation is required, but a ${kind === 'directory' ? 'folder' : kind} cannot have one: verify the .zip that fidelity fetch wrote`);
    }
    return null;
  }
  // A regular file, bounded, strict JSON: a link, a FIFO or a key given twice is refused, never followed, waited on or half-believed.
  const read = await readSideFile(file, SIDE_FILE_LIMITS.provenance);
  if (!read.ok) {
    if (read.why !== 'missing') findings.error('PROVENANCE_MALFORMED', `${shown(name)} ${read.message}`, { file: name });
    else if (requireProvider) {
      findings.error('PROVENANCE_MISSING', `provider attestation is required, but ${shown(name)} does not exist beside the archive: get the run with fidelity fetch`, { file: name });
    }
    return null;
  }
  const json = parseStrictJson(read.bytes);
  if (!json.ok) {
    findings.error('PROVENANCE_MALFORMED', `${shown(name)} ${json.message}`, { file: name });
    return null;
  }
  const raw = json.value;
  const parsed = Provenance.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    findings.error('PROVENANCE_MALFORMED', `${shown(name)} does not match its schema: ${z.prettifyError(parsed.error).split('\n')[0]}`, { file: name, path: jsonPath(issue.path) });
    return null;
  }
  return { file, record: parsed.data };
}

const sameText = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const noSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * Compares the archive with the provider's record. Repository names compare
 * without case, as GitHub's do; everything else compares exactly.
 */
export function checkProvenance(read: ProvenanceFile | null, ci: CiJson | undefined, digest: DigestCheck, findings: Findings): ProvenanceCheck {
  if (!read) return { attested_by: 'self', file: null, record: null };
  const before = findings.errors.length;
  const { record } = read;
  const name = path.basename(read.file);
  const differ = (code: string, field: string, ours: unknown, theirs: unknown): void => {
    findings.error(code, `ci.json ${field} is ${JSON.stringify(ours)}, the provider (${shown(name)}) says ${JSON.stringify(theirs)}`, { file: 'ci.json', path: jsonPath(field.split('.')) });
  };
  if (ci) {
    if (ci.run_id !== record.run.id) differ('PROVENANCE_RUN_MISMATCH', 'run_id', ci.run_id, record.run.id);
    if (ci.run_attempt !== record.run.run_attempt) differ('PROVENANCE_RUN_MISMATCH', 'run_attempt', ci.run_attempt, record.run.run_attempt);
    if (!sameText(ci.repository, record.repository.full_name)) differ('PROVENANCE_REPOSITORY_MISMATCH', 'repository', ci.repository, record.repository.full_name);
    if (!sameText(noSlash(ci.server_url), noSlash(record.provider.server_url))) differ('PROVENANCE_REPOSITORY_MISMATCH', 'server_url', ci.server_url, record.provider.server_url);
    if (!sameText(ci.head_sha, record.run.head_sha)) differ('PROVENANCE_HEAD_SHA_MISMATCH', 'head_sha', ci.head_sha, record.run.head_sha);
    // ci.json names the artifact of the run's files; in the two-upload workflow that is not the archive downloaded, and the record names both.
    const named = record.named_artifact ?? record.artifact;
    if (ci.artifact.name !== named.name) differ('PROVENANCE_ARTIFACT_MISMATCH', 'artifact.name', ci.artifact.name, named.name);
    if (ci.artifact.id !== named.id) differ('PROVENANCE_ARTIFACT_MISMATCH', 'artifact.id', ci.artifact.id, named.id);
    if (record.named_artifact && record.artifact.name !== `${record.named_artifact.name}-archive`) {
      findings.error('PROVENANCE_ARTIFACT_MISMATCH', `${shown(name)} records the archive ${JSON.stringify(record.artifact.name)} for the artifact ${JSON.stringify(record.named_artifact.name)}; the sealed archive of an artifact is <its name>-archive`, { file: name, path: '$.artifact.name' });
    }
  }
  const actual = digest.archive_sha256;
  for (const [field, claimed] of [
    ['artifact.digest', record.artifact.digest.replace(/^sha256:/, '')],
    ['download.sha256', record.download.sha256],
  ] as const) {
    if (actual !== claimed) {
      findings.error('PROVENANCE_DIGEST_MISMATCH', `the archive hashes to ${actual}, ${shown(name)} ${field} says ${claimed}`, { file: name, path: jsonPath(field.split('.')) });
    }
  }
  return { attested_by: findings.errors.length === before ? 'provider' : 'self', file: read.file, record };
}
