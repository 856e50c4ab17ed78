/**
 * What compare() decides about --out before any work (output/out-guard.ts):
 * real paths through symbolic links, only a sealed bundle of this tool is
 * replaced without force, a writable parent, one writer at a time, and the
 * sweep of what a killed run left next to --out. The compare() cases run on
 * real runs with real ffmpeg and check the inputs survive: the refusals on the
 * committed fixtures, the ones that measure and write on the shared small runs
 * (two pairs, test/shared/fixtures.ts), since --out is what they test.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOut } from '../../src/output/atomic.js';
import { claimOut, isSealedBundle, lockPath, realPathOf, sweepStaleSiblings } from '../../src/output/out-guard.js';
import { compare } from '../../src/compare.js';
import type { CompareProgress } from '../../src/comparison/types.js';
import { FidelityError } from '../../src/errors.js';
import { refusal } from '../refusal.js';
import { runDir, smallRuns } from '../../../../test/shared/fixtures.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const RUNS = path.join(ROOT, 'fixtures', 'runs');
// os.tmpdir() may itself be a link (macOS /tmp); the expectations below use real paths.
const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'fidelity-outguard-')));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/** What the compare() cases measure: the shared small runs (two pairs); what they test is --out, not the media. */
let H200 = '';
let B200 = '';
beforeAll(async () => {
  const runs = await smallRuns();
  [H200, B200] = [runDir(runs, 'H200'), runDir(runs, 'B200')];
}, 300_000);
let n = 0;
const fresh = () => path.join(tmp, `case-${n++}`);

/** Host tag as the library derives it, computed here independently. */
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

/** A pid that surely belongs to no process: a child that has exited and been reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) visit(r);
      else out[r] = createHash('sha256').update(readFileSync(path.join(dir, r))).digest('hex');
    }
  };
  visit('');
  return out;
}

/** A bundle as this tool seals one: report.json naming the tool, SHA256SUMS listing every other file. */
function handMadeBundle(dir: string, extra: Record<string, string> = {}): void {
  mkdirSync(path.join(dir, 'media'), { recursive: true });
  const files: Record<string, string> = {
    'report.json': JSON.stringify({ schema_version: 1, tool: { name: 'fidelity', version: '0.0.0' } }),
    'index.html': '<!doctype html>',
    'media/a.mp4': 'not really',
  };
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  const lines = Object.entries(files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([f, text]) => `${createHash('sha256').update(text).digest('hex')}  ${f}\n`);
  writeFileSync(path.join(dir, 'SHA256SUMS'), lines.join(''));
  for (const [f, text] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
}

describe('real paths', () => {
  it('resolves a path that does not exist yet through its nearest existing ancestor', async () => {
    const root = fresh();
    mkdirSync(path.join(root, 'real'), { recursive: true });
    symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    expect(await realPathOf(path.join(root, 'link', 'a', 'b'))).toBe(path.join(root, 'real', 'a', 'b'));
  });

  it('refuses, through a link, an input run inside the old bundle being replaced (even with force)', async () => {
    const root = fresh();
    const prev = path.join(root, 'o', 'prev');
    mkdirSync(prev, { recursive: true });
    cpSync(path.join(RUNS, 'b200'), path.join(prev, 'run'), { recursive: true });
    symlinkSync(path.join(prev, 'run'), path.join(root, 'lnk'));
    const before = snapshot(prev);
    const e = await refusal(compare(path.join(RUNS, 'h200'), [path.join(root, 'lnk')], { out: prev, force: true, threads: 1 }));
    expect(e.code).toBe('OUT_CONTAINS_INPUT');
    expect(snapshot(prev)).toEqual(before);
  });

  it('refuses an --out that reaches into an input run through a linked parent', async () => {
    const root = fresh();
    const run = path.join(root, 'b200');
    cpSync(path.join(RUNS, 'b200'), run, { recursive: true });
    symlinkSync(run, path.join(root, 'lc'));
    const before = snapshot(run);
    const e = await refusal(compare(path.join(RUNS, 'h200'), [run], { out: path.join(root, 'lc', 'bundle'), threads: 1 }));
    expect(e.code).toBe('OUT_INSIDE_INPUT');
    expect(snapshot(run)).toEqual(before);
  });
});

describe('what counts as a previous bundle', () => {
  it('is exactly a sealed bundle of this tool', async () => {
    const b = fresh();
    handMadeBundle(b);
    expect(await isSealedBundle(b)).toBe(true);
    expect(await checkOut(b, false)).toBe('bundle');
  });

  it('is not a folder that also holds files the seal does not list', async () => {
    const b = fresh();
    handMadeBundle(b, { 'src/thesis.tex': '\\documentclass{article}' });
    expect(await isSealedBundle(b)).toBe(false);
    expect((await refusal(checkOut(b, false))).code).toBe('OUT_NOT_EMPTY');
  });

  it('is not a folder whose seal lists a file that is missing, or whose report.json names another tool', async () => {
    const missing = fresh();
    handMadeBundle(missing);
    rmSync(path.join(missing, 'index.html'));
    expect(await isSealedBundle(missing)).toBe(false);
    const other = fresh();
    handMadeBundle(other);
    writeFileSync(path.join(other, 'report.json'), JSON.stringify({ schema_version: 1, tool: { name: 'other' } }));
    expect(await isSealedBundle(other)).toBe(false);
  });

  it('is not any folder holding a report.json and a SHA256SUMS: compare() refuses it and deletes nothing', async () => {
    const out = fresh();
    mkdirSync(path.join(out, 'src'), { recursive: true });
    writeFileSync(path.join(out, 'report.json'), '{}');
    writeFileSync(path.join(out, 'SHA256SUMS'), '');
    writeFileSync(path.join(out, 'src', 'thesis.tex'), 'years of work');
    const before = snapshot(out);
    const e = await refusal(compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')], { out, threads: 1 }));
    expect(e.code).toBe('OUT_NOT_EMPTY');
    expect(snapshot(out)).toEqual(before);
  });
});

describe('writability and the lock', () => {
  it('refuses an --out whose parent cannot be written, before any run is verified', async () => {
    const events: CompareProgress[] = [];
    const file = path.join(fresh());
    writeFileSync(file, 'a file, not a folder');
    for (const out of ['/proc/fidelity-out', path.join(file, 'bundle')]) {
      const e = await refusal(compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')], { out, threads: 1, onProgress: (ev) => events.push(ev) }));
      expect(e.code).toBe('OUT_NOT_WRITABLE');
    }
    expect(events).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('a file, not a folder');
  });

  it('lets shards that start at once make the missing parent of their side-by-side --out folders', async () => {
    // A job array's tasks start together, each with --out partials/<index> under a partials/ not made yet.
    for (let round = 0; round < 5; round++) {
      const parent = path.join(fresh(), 'partials');
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => claimOut(path.join(parent, String(i)), [], false, checkOut)));
      for (const [i, claim] of claims.entries()) {
        expect(existsSync(lockPath(claim.realOut)), `shard ${i}`).toBe(true);
        mkdirSync(claim.realOut);
      }
      await Promise.all(claims.map((c) => c.release()));
      expect(readdirSync(parent).sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    }
  });

  it('refuses a second writer of the same --out while the first holds the lock, then lets it in', async () => {
    const out = path.join(fresh(), 'nested', 'bundle');
    const first = await claimOut(out, [], false, checkOut);
    expect(existsSync(lockPath(first.realOut))).toBe(true);
    const e = await refusal(claimOut(out, [], false, checkOut));
    expect(e.code).toBe('OUT_LOCKED');
    expect(e.message).toContain(String(process.pid));
    await first.release();
    // Released: the lock is gone, and so are the parents made for an --out that never came.
    expect(existsSync(path.dirname(path.dirname(out)))).toBe(false);
    const second = await claimOut(out, [], false, checkOut);
    await second.release();
  });

  it('takes over the lock of a process that has ended', async () => {
    const out = fresh();
    writeFileSync(lockPath(out), JSON.stringify({ pid: deadPid(), host: HOST, hostname: os.hostname(), token: 'x' }));
    const claim = await claimOut(out, [], false, checkOut);
    expect(JSON.parse(readFileSync(lockPath(out), 'utf8')).pid).toBe(process.pid);
    await claim.release();
    expect(existsSync(lockPath(out))).toBe(false);
  });

  it('is released by the exit hook when the process ends without releasing it (a forced stop)', () => {
    const out = path.join(fresh(), 'bundle');
    const dist = path.join(ROOT, 'packages', 'fidelity', 'dist', 'output');
    const script = `
      const { claimOut } = await import(${JSON.stringify(path.join(dist, 'out-guard.js'))});
      const { checkOut, commitAtomically } = await import(${JSON.stringify(path.join(dist, 'atomic.js'))});
      await claimOut(${JSON.stringify(out)}, [], false, checkOut);
      await commitAtomically(${JSON.stringify(out)}, false, async () => process.exit(143));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(143);
    // Neither the lock nor the temp bundle being built outlives the process.
    expect(readdirSync(path.dirname(out))).toEqual([]);
  });

  it('lets exactly one of two takers have a dead process\'s lock', async () => {
    for (let round = 0; round < 5; round++) {
      const out = fresh();
      writeFileSync(lockPath(out), JSON.stringify({ pid: deadPid(), host: HOST, hostname: os.hostname(), token: 'x' }));
      const results = await Promise.allSettled([claimOut(out, [], false, checkOut), claimOut(out, [], false, checkOut)]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      expect(won).toHaveLength(1);
      expect(results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as FidelityError).code] : []))).toEqual(['OUT_LOCKED']);
      expect(readdirSync(path.dirname(out)).filter((f) => f.includes('fidelity-lock'))).toEqual([path.basename(lockPath(out))]);
      await won[0]!.release();
    }
  });

  it('two compare() into one --out at once: one writes the bundle, the other is refused with OUT_LOCKED', async () => {
    const out = fresh();
    const args = [H200, [B200]] as const;
    const results = await Promise.allSettled([compare(args[0], args[1], { out, threads: 1 }), compare(args[0], args[1], { out, threads: 1 })]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as FidelityError] : []));
    expect(ok).toHaveLength(1);
    expect(refused.map((e) => e.code)).toEqual(['OUT_LOCKED']);
    expect(await isSealedBundle(out)).toBe(true);
    expect(readdirSync(path.dirname(out)).filter((f) => f.startsWith(`.${path.basename(out)}.`))).toEqual([]);
    // A real bundle is a previous bundle: running again replaces it without --force.
    await compare(args[0], args[1], { out, threads: 1 });
    expect(await isSealedBundle(out)).toBe(true);
  }, 120_000);
});

describe('leftovers of a killed run next to --out', () => {
  it('removes a dead owner\'s temp bundle, keeps a live owner\'s, and puts back a bundle moved aside', async () => {
    const root = fresh();
    mkdirSync(root);
    const out = path.join(root, 'bundle');
    const dead = deadPid();
    const tmpDead = path.join(root, `.bundle.fidelity-tmp-${HOST}-${dead}-0a0b0c0d`);
    const tmpLive = path.join(root, `.bundle.fidelity-tmp-${HOST}-${process.ppid}-0a0b0c0d`);
    const otherHost = path.join(root, `.bundle.fidelity-tmp-00000000-${dead}-0a0b0c0d`);
    const old = path.join(root, `.bundle.fidelity-old-${HOST}-${dead}-01020304`);
    for (const d of [tmpDead, tmpLive, otherHost]) mkdirSync(d);
    handMadeBundle(old);
    const before = snapshot(old);
    // The run died between its two renames: --out is missing and the previous bundle is aside.
    await sweepStaleSiblings(out);
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(root).sort()).toEqual([path.basename(tmpLive), path.basename(otherHost), 'bundle'].sort());
  });

  it('compare() sweeps them once it holds the lock', async () => {
    const root = fresh();
    mkdirSync(root);
    const out = path.join(root, 'bundle');
    const stale = path.join(root, `.bundle.fidelity-tmp-${HOST}-${deadPid()}-0a0b0c0d`);
    mkdirSync(stale);
    writeFileSync(path.join(stale, 'report.json'), 'half');
    await compare(H200, [B200], { out, threads: 1 });
    expect(readdirSync(root)).toEqual(['bundle']);
  }, 120_000);
});

describe('a bundle and a partial are different things', () => {
  const h200 = () => H200;
  const b200 = () => [B200];

  it('compare --shard --partial <a finished bundle> refuses and leaves the bundle; --force replaces it', async () => {
    const bundle = fresh();
    await compare(h200(), b200(), { out: bundle, threads: 2 });
    const before = snapshot(bundle);
    const e = await refusal(compare(h200(), b200(), { out: bundle, shard: { index: 0, count: 2 }, threads: 2 }));
    expect(e.code).toBe('OUT_NOT_EMPTY');
    expect(e.message).toMatch(/bundle, not a partial/);
    expect(snapshot(bundle)).toEqual(before);
    await compare(h200(), b200(), { out: bundle, shard: { index: 0, count: 2 }, threads: 2, force: true });
    expect(existsSync(path.join(bundle, 'partial.json'))).toBe(true);
  }, 120_000);

  it('compare --out <a partial> refuses and leaves the partial; a previous partial is still replaced by its shard', async () => {
    const partial = fresh();
    const generatedAt = new Date(0);
    await compare(h200(), b200(), { out: partial, shard: { index: 1, count: 2 }, threads: 2, generatedAt });
    const before = snapshot(partial);
    const e = await refusal(compare(h200(), b200(), { out: partial, threads: 2 }));
    expect(e.code).toBe('OUT_NOT_EMPTY');
    expect(e.message).toMatch(/partial, not a bundle/);
    expect(snapshot(partial)).toEqual(before);
    // A requeued shard writes its partial again in place.
    await compare(h200(), b200(), { out: partial, shard: { index: 1, count: 2 }, threads: 2, generatedAt });
    expect(snapshot(partial)).toEqual(before);
  }, 120_000);
});
