/**
 * Scale-out on a real scheduler: a one-node Slurm cluster on this machine
 * (Debian's slurm-wlm and munge, started by slurm-cluster.sh with a fresh
 * munge key and a slurm.conf for this host), `sbatch --wait --array=0-2` of a
 * script that runs `fidelity compare --shard auto`, then `fidelity merge`
 * (with --remeasure all for the byte comparison, and by default),
 * and a byte comparison with the one-machine bundle (compare() of the same
 * runs at the same SOURCE_DATE_EPOCH, the suite's shared copy). The daemons
 * the setup started are stopped by pid.
 *
 * CI must run this (.ci/run installs slurm-wlm and munge, and a missing
 * Slurm fails there). Elsewhere, without Slurm or without root, it is
 * reported as skipped, loudly, never as passed.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, FIXTURES, ROOT, sha256, snapshot, type CliResult } from './helpers.js';
import { fixtureBundle, SHARED_EPOCH } from '../shared/fixtures.js';

const SETUP = path.join(ROOT, 'test', 'e2e', 'slurm-cluster.sh');
// The shared one-machine bundle's epoch (test/shared/fixtures.ts), so the merges can be compared with it.
const EPOCH = SHARED_EPOCH;
const RUNS = ['h200', 'b200', 'h100'].map((s) => path.join(FIXTURES, s));

function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/sbin', '/sbin'])) if (dir && existsSync(path.join(dir, name))) return true;
  return false;
}
const missing = ['slurmctld', 'slurmd', 'sbatch', 'sinfo', 'munged', 'setpriv'].filter((t) => !onPath(t));
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const why = missing.length ? `${missing.join(', ')} not installed (apt-get install -y slurm-wlm munge)` : isRoot ? '' : 'the test cluster must be started as root (munged runs as munge)';
const HAVE_SLURM = why === '';
if (!HAVE_SLURM) {
  if (process.env.CI === 'true') throw new Error(`The Slurm test must run on CI: ${why}. .ci/run installs slurm-wlm and munge.`);
  console.warn(`SKIPPED: the Slurm job array test: ${why}.`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-slurm-'));
// munged runs as user munge and must reach its socket and key under this folder.
chmodSync(tmp, 0o755);
const cluster = path.join(tmp, 'cluster');
const env = { ...process.env, SLURM_CONF: path.join(cluster, 'slurm.conf'), PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };
let started = false;
let sbatch: { code: number; out: string };
let merged: CliResult;
let mergedDefault: CliResult;
/** compare() of the same runs on one machine at EPOCH: the shared, read-only bundle. */
let one: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function run(file: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, cwd: ROOT, timeout: 600_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** The job script a user would write: one shard per array task, its index and count from Slurm. */
function jobScript(name: string, extra: string): string {
  const script = path.join(tmp, name);
  writeFileSync(
    script,
    [
      '#!/bin/bash',
      'set -euo pipefail',
      `export SOURCE_DATE_EPOCH=${EPOCH}`,
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} compare ${RUNS.map((r) => JSON.stringify(r)).join(' ')} --shard auto ${extra} --partial ${JSON.stringify(path.join(tmp, 'partials'))}/$SLURM_ARRAY_TASK_ID --threads 1`,
      '',
    ].join('\n'),
  );
  return script;
}

beforeAll(async () => {
  if (!HAVE_SLURM) return;
  const [ctld, d] = [await freePort(), await freePort()];
  started = true;
  const setup = await run('bash', [SETUP, 'start', cluster, String(ctld), String(d)]);
  if (setup.code !== 0) throw new Error(`the test cluster did not start:\n${setup.out}`);

  sbatch = await run('sbatch', ['--wait', '--array=0-2', `--chdir=${ROOT}`, `--output=${path.join(tmp, 'shard-%a.log')}`, '--job-name=fidelity-shard', jobScript('shard.sh', '')]);
  // Every pair re-measured by merge: the bundle is then compare's, byte for byte (docs/scale-out.md, "Trust").
  merged = await cli(['merge', ...RUNS, '--partials', path.join(tmp, 'partials'), '--out', path.join(tmp, 'merged'), '--remeasure', 'all', '--json'], { env: { SOURCE_DATE_EPOCH: EPOCH } });
  mergedDefault = await cli(['merge', ...RUNS, '--partials', path.join(tmp, 'partials'), '--out', path.join(tmp, 'merged-default'), '--json'], { env: { SOURCE_DATE_EPOCH: EPOCH } });
  one = (await fixtureBundle(['b200', 'h100'])).dir;
}, 900_000);

afterAll(async () => {
  if (started) await run('bash', [SETUP, 'stop', cluster]);
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!HAVE_SLURM)('a Slurm job array of fidelity compare --shard auto', () => {
  const logs = (): string =>
    readdirSync(tmp)
      .filter((f) => f.startsWith('shard-'))
      .map((f) => `${f}:\n${readFileSync(path.join(tmp, f), 'utf8')}`)
      .join('\n');

  it('runs three array tasks that each write a sealed partial of their shard', () => {
    expect(sbatch.code, `${sbatch.out}\n${logs()}`).toBe(0);
    expect(readdirSync(path.join(tmp, 'partials')).sort()).toEqual(['0', '1', '2']);
    for (const k of [0, 1, 2]) {
      const doc = JSON.parse(readFileSync(path.join(tmp, 'partials', String(k), 'partial.json'), 'utf8')) as { shard: unknown; pair_indices: number[] };
      expect(doc.shard).toEqual({ index: k, count: 3 });
      expect(doc.pair_indices.every((j) => j % 3 === k)).toBe(true);
      expect(readFileSync(path.join(tmp, `shard-${k}.log`), 'utf8')).toContain(`Shard ${k}/3:`);
    }
  });

  it('merges into the bundle one machine writes, byte for byte', () => {
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    const a = snapshot(path.join(tmp, 'merged'));
    // Media, sources, pages and every pair's files (one still for a bit-identical pair, four pictures otherwise).
    expect(Object.keys(a).length).toBeGreaterThan(80);
    expect(Object.keys(a).filter((f) => f.endsWith('.webp')).length).toBeGreaterThan(10);
    expect(a).toEqual(snapshot(one));
    expect(JSON.parse(merged.stdout).seal_sha256).toBe(sha256(readFileSync(path.join(one, 'SHA256SUMS'))));
  });

  it('by default re-measures one pair per partial, and differs from the one-machine bundle only in saying so', () => {
    expect(mergedDefault.code, mergedDefault.stdout + mergedDefault.stderr).toBe(0);
    const origin = (JSON.parse(mergedDefault.stdout) as { measurement_origin: { pairs: number; measured_here: number; taken_from_shards: number } }).measurement_origin;
    expect(origin.measured_here).toBe(3);
    expect(origin.taken_from_shards).toBe(origin.pairs - 3);
    const a = snapshot(path.join(tmp, 'merged-default'));
    const oneFiles = snapshot(one);
    expect(Object.keys(a)).toEqual(Object.keys(oneFiles));
    expect(Object.keys(oneFiles).filter((f) => a[f] !== oneFiles[f]).sort()).toEqual(['SHA256SUMS', 'index.html', 'index.zh.html', 'report.json']);
  });

  it('after a lost shard, names it as --array=1, and a rerun of that index alone completes the same bundle', async () => {
    rmSync(path.join(tmp, 'partials', '1'), { recursive: true });
    const refused = await cli(['merge', ...RUNS, '--partials', path.join(tmp, 'partials'), '--out', path.join(tmp, 'merged-2'), '--json'], { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(refused.code).toBe(2);
    const error = (JSON.parse(refused.stdout) as { errors: { code: string; message: string }[] }).errors[0]!;
    expect(error.code).toBe('SHARD_MISSING');
    const array = /--array=(\S+)/.exec(error.message)?.[1];
    expect(array).toBe('1');
    // The rerun script passes --shards 3: the array index is then the shard index, whatever else the array holds.
    const rerun = await run('sbatch', ['--wait', `--array=${array}`, `--chdir=${ROOT}`, `--output=${path.join(tmp, 'rerun-%a.log')}`, jobScript('rerun.sh', '--shards 3')]);
    expect(rerun.code, `${rerun.out}\n${readFileSync(path.join(tmp, 'rerun-1.log'), 'utf8')}`).toBe(0);
    // merge's default (one pair per partial re-measured), as the complete array's default merge above:
    // that bundle is the one-machine bundle but for the count it states, so equal to it is the same bundle.
    const again = await cli(['merge', ...RUNS, '--partials', path.join(tmp, 'partials'), '--out', path.join(tmp, 'merged-2')], { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(again.code, again.stderr).toBe(0);
    expect(snapshot(path.join(tmp, 'merged-2'))).toEqual(snapshot(path.join(tmp, 'merged-default')));
  }, 600_000);

  it('stops only the daemons it started', async () => {
    const pids = readFileSync(path.join(cluster, 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    await run('bash', [SETUP, 'stop', cluster]);
    started = false;
    for (const pid of pids) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
  });
});
