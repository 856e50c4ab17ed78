/**
 * The artifact digest (GitHub's artifact-digest) is the SHA-256 of the zip
 * itself, so it travels beside it as `<archive>.sha256`. Folders have none.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { readSideFile, SIDE_FILE_LIMITS } from '../side-file.js';
import { Findings, shown } from './findings.js';
import { hashChunks } from './hash.js';
import type { ArchiveKind, DigestCheck } from './types.js';

const SIDECAR = /^(?:sha256:)?([0-9a-fA-F]{64})(?: {2}(.+))?$/;

export async function checkDigest(source: string, kind: ArchiveKind, requireDigest: boolean, findings: Findings): Promise<DigestCheck> {
  if (kind === 'directory') {
    if (requireDigest) {
      findings.error('DIGEST_MISSING', 'an artifact digest is required, but a folder has none: verify the .zip the CI service reported the digest of');
    }
    return { checked: false, archive_sha256: null, expected: null, file: null };
  }
  const { sha256: actual } = await hashChunks(createReadStream(source, { highWaterMark: 1024 * 1024 }));
  const sidecar = `${source}.sha256`;
  const sidecarName = path.basename(sidecar);
  // A regular file of one line: a link, a FIFO or a huge file beside the archive is refused, never followed or read whole.
  const read = await readSideFile(sidecar, SIDE_FILE_LIMITS.digest);
  if (!read.ok) {
    if (read.why !== 'missing') {
      findings.error('DIGEST_MALFORMED', `${shown(sidecarName)} ${read.message}`, { file: sidecarName });
      return { checked: false, archive_sha256: actual, expected: null, file: sidecar };
    }
    if (requireDigest) findings.error('DIGEST_MISSING', `an artifact digest is required, but ${shown(sidecarName)} does not exist beside the archive`, { file: sidecarName });
    return { checked: false, archive_sha256: actual, expected: null, file: null };
  }
  const text = read.bytes.toString('utf8');
  const body = text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
  const match = SIDECAR.exec(body);
  if (!match) {
    findings.error('DIGEST_MALFORMED', `${shown(sidecarName)} holds ${shown(body, 90)}, expected "sha256:<64 hex>" or "<64 hex>"`, { file: sidecarName });
    return { checked: false, archive_sha256: actual, expected: null, file: sidecar };
  }
  const expected = match[1]!.toLowerCase();
  const named = match[2];
  if (named !== undefined && path.basename(named.replace(/^\*/, '')) !== path.basename(source)) {
    findings.warn('DIGEST_NAME_MISMATCH', `${shown(sidecarName)} names ${shown(named)}, not ${shown(path.basename(source))}`, { file: sidecarName });
  }
  if (expected !== actual) {
    findings.error('DIGEST_MISMATCH', `the archive hashes to ${actual}, ${shown(sidecarName)} says ${expected}`, { file: sidecarName });
  }
  return { checked: true, archive_sha256: actual, expected, file: sidecar };
}
