// Shared by the end-to-end tests: run the real CLI as a user would, and build run variants on disk.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'fidelity.js');
export const FIXTURES = path.join(ROOT, 'fixtures', 'runs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI; it is killed after `timeoutMs` (default 300 s). */
export function cli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  // A suite run inside a GitHub Actions job must not append to that job's summary: only a test that asks gets one.
  const { GITHUB_STEP_SUMMARY: _ignored, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...inherited, FORCE_COLOR: '0', ...options.env }, maxBuffer: 64 << 20, timeout: options.timeoutMs ?? 300_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Every file under dir (relative path -> sha256), so "left exactly as it was" is one equality. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) visit(r);
      else out[r] = sha256(readFileSync(path.join(dir, r)));
    }
  };
  visit('');
  return out;
}

/** Rewrites a run's SHA256SUMS over its current files, as a producer would after editing it. */
export function reseal(dir: string): void {
  const lines = Object.entries(snapshot(dir))
    .filter(([p]) => p !== 'SHA256SUMS')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([p, h]) => `${h}  ${p}\n`);
  writeFileSync(path.join(dir, 'SHA256SUMS'), lines.join(''));
}

/** Zips a run folder the way a CI artifact download looks: everything under one top-level folder. */
export function zipRun(dir: string, zipFile: string, top: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const rel of Object.keys(snapshot(dir))) {
    zip.addFile(path.join(dir, rel), `${top}/${rel}`, { mtime: new Date(Date.UTC(2026, 0, 1)) });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(zipFile)).on('close', () => resolve()).on('error', reject);
  });
}
