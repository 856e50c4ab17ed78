/**
 * `fidelity fetch <owner>/<repo> <run_id> --out <dir>`: downloads a run's
 * artifact from GitHub Actions with the provider's record of it
 * (<name>.zip, <name>.zip.sha256, <name>.zip.provenance.json). The only
 * command that talks to the network. Exit 0 written, 2 refused.
 */
import { counted, FidelityError, fetchRun, type FetchProgress, type FetchRunResult } from 'media-fidelity';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import { abortOnSigint } from './compare.js';
import type { CommandArgs } from './types.js';

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new FidelityError('USAGE', `Expected a positive integer for ${flag} but received ${JSON.stringify(value)}`);
  return n;
}

function progressLine(io: Io, enabled: boolean): ((e: FetchProgress) => void) | undefined {
  if (!enabled) return undefined;
  let lastStep = -1;
  return (e) => {
    if (e.stage !== 'download') {
      io.err(`${e.stage === 'run' ? 'reading' : 'listing the artifacts of'} ${e.detail}\n`);
      return;
    }
    // One line per tenth of the artifact: enough to see it move, short in a log.
    const step = e.total > 0 ? Math.floor((10 * e.bytes) / e.total) : 0;
    if (step !== lastStep) {
      lastStep = step;
      io.err(`downloading ${e.bytes} of ${e.total} bytes\n`);
    }
  };
}

function resultDocument(result: FetchRunResult): Record<string, unknown> {
  const r = result.record;
  return {
    ok: true,
    zip: result.zip,
    digest: result.digest,
    provenance: result.provenance,
    repository: r.repository.full_name,
    run_id: r.run.id,
    run_attempt: r.run.run_attempt,
    head_sha: r.run.head_sha,
    conclusion: r.run.conclusion,
    artifact: { id: r.artifact.id, name: r.artifact.name, digest: r.artifact.digest, size: r.download.size },
    errors: [],
  };
}

/** `fidelity fetch`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  const interrupt = abortOnSigint(signal);
  try {
    if (positionals.length !== 2) throw new FidelityError('USAGE', `fetch needs <owner>/<repo> and <run_id>; got ${counted(positionals.length, 'argument')}`);
    if (typeof values.out !== 'string' || values.out === '') throw new FidelityError('USAGE', 'fetch needs --out <dir>');
    const [repository, runText] = positionals as [string, string];
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) throw new FidelityError('USAGE', `Expected <owner>/<repo> but received ${JSON.stringify(repository)}`);
    const runId = positiveInt('<run_id>', runText);
    const onProgress = progressLine(io, io.errIsTty || Boolean(values.progress));
    const result = await fetchRun(repository, runId, {
      out: values.out,
      force: Boolean(values.force),
      signal: interrupt.signal,
      ...(typeof values.attempt === 'string' ? { attempt: positiveInt('--attempt', values.attempt) } : {}),
      ...(typeof values.artifact === 'string' ? { artifact: values.artifact } : {}),
      ...(typeof values['api-url'] === 'string' ? { apiUrl: values['api-url'] } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    if (json) printJson(io, resultDocument(result));
    else {
      const r = result.record;
      io.out(
        [
          `fetched ${r.artifact.name} (artifact ${r.artifact.id}, ${result.record.download.size} bytes) of run ${r.run.id} attempt ${r.run.run_attempt} of ${r.repository.full_name}`,
          `  commit      ${r.run.head_sha}`,
          `  run         ${r.run.status}/${r.run.conclusion ?? 'no conclusion'}  ${r.run.html_url}`,
          `  digest      ${r.artifact.digest} (GitHub's, matched by the bytes downloaded)`,
          `  zip         ${result.zip}`,
          `  provenance  ${result.provenance}`,
          `Check it offline with: fidelity verify ${result.zip} --provider`,
        ].join('\n') + '\n',
      );
    }
    return EXIT.ok;
  } catch (error) {
    return reportFailure(io, error, json);
  } finally {
    interrupt.dispose();
  }
}
