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
import { ciProvider, type CiJson } from '../schemas/run-archive.js';
import { Provenance, provenancePath } from '../provider/schema.js';
import { parseStrictJson, readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { Findings, jsonPath, shown } from './findings.js';
import type { ArchiveKind, DigestCheck, ProvenanceCheck } from './types.js';

export interface ProvenanceFile {
  file: string;
  record: Provenance;
}

/**
 * What is beside the archive: the parsed provenance file, none (`absent`, or `not_zip` for a folder
 * or tar.gz, which cannot have one), or a file that could not be used (`unusable`: findings say why).
 * Whether a missing file is an error is decided once ci.json is read (checkProvenance): only a
 * GitHub run can have one.
 */
export type ProvenanceRead = { state: 'found'; file: string; record: Provenance } | { state: 'absent'; name: string } | { state: 'not_zip'; kind: ArchiveKind } | { state: 'unusable' };

/** Reads and parses the provenance file beside a zip. */
export async function readProvenance(source: string, kind: ArchiveKind, findings: Findings): Promise<ProvenanceRead> {
  const file = provenancePath(source);
  const name = path.basename(file);
  // A provider artifact is always a zip: a folder or tar.gz was made from one by someone else, after the provider saw it.
  if (kind !== 'zip') return { state: 'not_zip', kind };
  // A regular file, bounded, strict JSON: a link, a FIFO or a key given twice is refused, never followed, waited on or half-believed.
  const read = await readSideFile(file, SIDE_FILE_LIMITS.provenance);
  if (!read.ok) {
    if (read.why === 'missing') return { state: 'absent', name };
    findings.error('PROVENANCE_MALFORMED', `${shown(name)} ${read.message}`, { file: name });
    return { state: 'unusable' };
  }
  const json = parseStrictJson(read.bytes);
  if (!json.ok) {
    findings.error('PROVENANCE_MALFORMED', `${shown(name)} ${json.message}`, { file: name });
    return { state: 'unusable' };
  }
  const raw = json.value;
  const parsed = Provenance.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    findings.error('PROVENANCE_MALFORMED', `${shown(name)} does not match its schema: ${z.prettifyError(parsed.error).split('\n')[0]}`, { file: name, path: jsonPath(issue.path) });
    return { state: 'unusable' };
  }
  return { state: 'found', file, record: parsed.data };
}

const sameText = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const noSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * Compares the archive with the provider's record. Repository names compare
 * without case, as GitHub's do; everything else compares exactly.
 */
export function checkProvenance(read: ProvenanceRead, ci: CiJson | undefined, digest: DigestCheck, requireProvider: boolean, findings: Findings): ProvenanceCheck {
  const self: ProvenanceCheck = { attested_by: 'self', file: null, record: null };
  const provider = ci ? ciProvider(ci) : 'github';
  if (ci && ci.provider !== undefined && ci.provider !== 'github') {
    // fetch and its record exist for GitHub Actions only: another CI's run can be self-attested, never provider-attested.
    if (requireProvider) {
      findings.error(
        'PROVENANCE_UNSUPPORTED',
        `provider attestation is required, but ci.json names provider ${JSON.stringify(provider)}: only GitHub Actions runs can be fetched and attested (fidelity fetch); without --provider / --require-provider the run is reported as self-attested`,
        { file: 'ci.json', path: '$.provider' },
      );
    }
    if (read.state === 'found') {
      findings.error('PROVENANCE_UNSUPPORTED', `${shown(path.basename(read.file))} records a GitHub Actions run, but ci.json names provider ${JSON.stringify(provider)}`, { file: 'ci.json', path: '$.provider' });
    }
    return self;
  }
  if (read.state !== 'found') {
    if (requireProvider && read.state === 'not_zip') {
      findings.error('PROVENANCE_MISSING', `provider attestation is required, but a ${read.kind === 'directory' ? 'folder' : read.kind} cannot have one: verify the .zip that fidelity fetch wrote`);
    } else if (requireProvider && read.state === 'absent') {
      findings.error('PROVENANCE_MISSING', `provider attestation is required, but ${shown(read.name)} does not exist beside the archive: get the run with fidelity fetch`, { file: read.name });
    }
    return self;
  }
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
