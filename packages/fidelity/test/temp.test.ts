/**
 * Temp folders of a run that was killed outright (no exit hook ran) are
 * removed by the next process that makes one in the same place, judged by the
 * owner recorded in the name: only this host's, only dead pids.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, sweepStaleTempDirs } from '../src/temp.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-temp-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

function leftover(base: string, name: string): string {
  const dir = path.join(base, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'measurement-r000-c000.mp4'), 'a copy');
  return dir;
}

describe('temp folders', () => {
  it('carry their owner in the name', async () => {
    const base = path.join(tmp, 'names');
    mkdirSync(base);
    const dir = await makeTempDir(base, 'run');
    expect(path.basename(dir)).toMatch(new RegExp(`^fidelity-run-${HOST}-${process.pid}-[A-Za-z0-9]{6}$`));
    await removeTempDir(dir);
    expect(readdirSync(base)).toEqual([]);
  });

  it('left by a dead process of this host are swept by the next one made there; others are kept', async () => {
    const base = path.join(tmp, 'sweep');
    mkdirSync(base);
    const dead = deadPid();
    const stale = leftover(base, `fidelity-run-${HOST}-${dead}-abc123`);
    // The demo's synthetic runs folder (label "demo-runs") is swept the same way.
    const staleDemo = leftover(base, `fidelity-demo-runs-${HOST}-${dead}-Zx9Yw8`);
    const live = leftover(base, `fidelity-run-${HOST}-${process.ppid}-abc123`);
    const otherHost = leftover(base, `fidelity-run-00000000-${dead}-abc123`);
    const notOurs = leftover(base, `fidelity-run-${dead}-abc123`);
    const dir = await makeTempDir(base, 'run');
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(staleDemo)).toBe(false);
    for (const kept of [live, otherHost, notOurs, dir]) expect(existsSync(kept)).toBe(true);
    await removeTempDir(dir);
    // Sweeping again finds nothing more to remove.
    expect(await sweepStaleTempDirs(base)).toEqual([]);
  });
});
