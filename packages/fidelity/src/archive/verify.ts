/**
 * verifyRun: the whole contract of docs/run-archive.md over one archive, every
 * problem collected (not just the first), each with its own reason code.
 * Order: source and digest, inventory (names, limits, hashes), seal,
 * identity, records. Nothing is written during verification; media copies
 * happen later, on request, in a temp folder the run owns.
 */
import { stat } from 'node:fs/promises';
import { FidelityError } from '../errors.js';
import { checkDigest } from './digest.js';
import { Findings, shown } from './findings.js';
import { checkIdentity, runLinks } from './identity.js';
import { takeInventory } from './inventory.js';
import { isKnownFile, SEAL_FILE } from './layout.js';
import { resolveLimits } from './limits.js';
import { mediaAccess } from './media.js';
import { checkProvenance, readProvenance, type ProvenanceRead } from './provenance.js';
import { checkRecords } from './records.js';
import { checkSeal, parseSeal } from './seal.js';
import { openDirectory } from './source-dir.js';
import { detectKind, type ArchiveReader } from './source.js';
import type { VerifiedRun, VerifyOptions, VerifyResult } from './types.js';

/**
 * Checks one run archive (a folder, a `.zip` or a `.tar.gz`) against every rule of
 * docs/run-archive.md: entries and limits, the SHA256SUMS seal, the artifact digest, the identity of
 * ci.json / plan.json / run.json, one record per planned slot, and the media. An invalid archive is
 * not an exception: the result lists every problem with its code. A valid result holds the open
 * run; call `run.close()` when done with it.
 *
 * @throws FidelityError `INVALID_ARGUMENT` when `source` is not a path or an option is malformed,
 *   `ABORTED` when `signal` fires.
 * @example
 * ```ts
 * const checked = await verifyRun('runs/h200.zip', { requireDigest: true });
 * if (!checked.ok) for (const p of checked.problems) console.error(p.code, p.message, p.where);
 * else {
 *   console.log(checked.run.ci.hardware.gpu_model, checked.run.links.run);
 *   await checked.run.close();
 * }
 * ```
 */
export async function verifyRun(source: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  if (typeof source !== 'string' || source === '') {
    throw new FidelityError('INVALID_ARGUMENT', `Expected a path for source but received ${JSON.stringify(source)}`);
  }
  const limits = resolveLimits(options.limits);
  const findings = new Findings();
  const failed = (): VerifyResult => ({ ok: false, problems: findings.errors });
  throwIfAborted(options.signal);

  let kind;
  let digest;
  let provenanceFile: ProvenanceRead = { state: 'unusable' };
  try {
    await stat(source);
    kind = await detectKind(source);
    if (kind === 'unknown') {
      findings.error('ARCHIVE_UNREADABLE', `${shown(source)} is not a folder, a zip or a tar.gz (judged by its content, not its name)`);
      return failed();
    }
    digest = await checkDigest(source, kind, options.requireDigest ?? false, findings);
    provenanceFile = await readProvenance(source, kind, findings);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') findings.error('SOURCE_NOT_FOUND', `${shown(source)} does not exist`);
    else findings.error('ARCHIVE_UNREADABLE', `${shown(source)} cannot be read: ${(error as Error).message}`);
    return failed();
  }
  throwIfAborted(options.signal);

  let reader: ArchiveReader;
  try {
    const readerOptions = { stopAfterFiles: limits.maxFiles, stopAfterEntries: limits.maxEntries };
    // The zip and tar readers (yauzl, tar-stream) load only for an archive of their kind: verifying a folder never pays for them.
    reader =
      kind === 'directory'
        ? await openDirectory(source, readerOptions)
        : kind === 'zip'
          ? await (await import('./source-zip.js')).openZip(source, readerOptions)
          : (await import('./source-tar.js')).openTarGz(source, limits);
  } catch (error) {
    findings.error('ARCHIVE_UNREADABLE', `the ${kind} cannot be opened: ${(error as Error).message}`);
    return failed();
  }
  let inventory;
  try {
    inventory = await takeInventory(reader, limits, findings, options.signal);
  } finally {
    await reader.close();
  }
  if (!inventory) return failed();

  const sealBytes = inventory.metadata.get(SEAL_FILE);
  let seal;
  if (sealBytes) {
    seal = parseSeal(sealBytes, findings);
    checkSeal(seal, inventory, findings);
  } else {
    findings.error('SEAL_MISSING', 'SHA256SUMS is absent: nothing vouches for the files', { file: SEAL_FILE });
  }
  for (const file of inventory.files.keys()) {
    // The format forbids unsealed files, not sealed extras (logs, notes): those are kept as a warning.
    if (!isKnownFile(file)) findings.warn('ARCHIVE_UNKNOWN_FILE', `${shown(file)} is not a file the run archive format defines (sealed, kept, not used)`, { file });
  }

  const identity = checkIdentity(inventory.metadata, findings);
  const media = checkRecords({ plan: identity.plan, records: identity.records, inventory, seal }, findings);
  const provenance = checkProvenance(provenanceFile, identity.ci, digest, options.requireProvider ?? false, findings);

  const { ci, plan, run, plan_sha256 } = identity;
  if (findings.errors.length > 0 || !ci || !plan || !run || !plan_sha256) {
    if (findings.errors.length === 0) findings.error('INTERNAL', 'verification produced no run and no problem');
    return failed();
  }

  const metadata = inventory.metadata;
  const access = mediaAccess({ source, kind, prefix: inventory.prefix, media, limits, ...(reader.stamps ? { stamps: reader.stamps } : {}), ...(options.tempDir ? { tempDir: options.tempDir } : {}) });
  const verified: VerifiedRun = {
    source: { path: source, kind },
    ci,
    plan,
    run,
    plan_sha256,
    links: runLinks(ci),
    digest,
    provenance,
    files: {
      'ci.json': metadata.get('ci.json')!,
      'plan.json': metadata.get('plan.json')!,
      'run.json': metadata.get('run.json')!,
      SHA256SUMS: metadata.get(SEAL_FILE)!,
    },
    telemetry: {
      gpu_metrics_csv: metadata.get('telemetry/gpu_metrics.csv') ?? null,
      server_timing_jsonl: metadata.get('telemetry/server_timing.jsonl') ?? null,
    },
    records: run.records,
    media,
    mediaPath: (slotId) => access.mediaPath(slotId),
    checkMedia: (slotId) => access.checkMedia(slotId),
    close: () => access.close(),
  };
  return { ok: true, run: verified, warnings: findings.warnings };
}

/** verifyRun for callers that only go on with a valid run: throws RUN_INVALID carrying every problem. */
export async function openVerifiedRun(source: string, options: VerifyOptions = {}): Promise<VerifiedRun> {
  const result = await verifyRun(source, options);
  if (result.ok) return result.run;
  const n = result.problems.length;
  const first = result.problems[0];
  throw new FidelityError('RUN_INVALID', `${source} is not a valid run archive: ${n} problem${n === 1 ? '' : 's'}${first ? `, first ${first.code}: ${first.message}` : ''}`, {
    problems: result.problems,
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new FidelityError('ABORTED', 'verification was cancelled', { cause: signal.reason });
}
