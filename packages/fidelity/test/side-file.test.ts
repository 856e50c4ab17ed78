/**
 * Side files (a --policy, a --calibration, a run's <zip>.sha256 and
 * <zip>.provenance.json) are evidence from elsewhere: each must be a regular
 * file, is read up to a bound, and is strict JSON where it is JSON. A FIFO
 * must be refused at once (a read of one would block the command, even
 * through SIGTERM), a symbolic link refused rather than followed, an
 * oversized file refused without being read whole, a key given twice refused.
 */
import { constants, mkdtempSync, openSync, closeSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../src/archive/verify.js';
import type { VerifyResult } from '../src/archive/types.js';
import { loadCalibration } from '../src/calibrate/load.js';
import { DEFAULT_POLICY } from '../src/policy/default.js';
import { loadPolicy } from '../src/policy/load.js';
import { render, sha256, validDraft, writeZip, zipItems } from './archive/fixture.js';
import { mkfifo } from './archive/mkfifo.js';
import { refusal } from './refusal.js';
import { calibrationDoc } from './calibrate/calibration-doc.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-side-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const at = (name: string) => path.join(tmp, `${++n}-${name}`);
const write = (name: string, text: string | Buffer) => {
  const p = at(name);
  writeFileSync(p, text);
  return p;
};
const link = (target: string) => {
  const p = at('link.json');
  symlinkSync(target, p);
  return p;
};

/**
 * Settles `work` or gives up after 5 s. On giving up the FIFO is opened for
 * writing and closed, so the blocked read ends and the test process is not
 * left with a thread stuck forever.
 */
async function settlesSoon<T>(work: Promise<T>, fifo: string): Promise<T | 'blocked'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'blocked'>((resolve) => {
    timer = setTimeout(() => resolve('blocked'), 5000);
  });
  const result = await Promise.race([work.catch((e: unknown) => Promise.reject(e)), late]).finally(() => clearTimeout(timer));
  if (result === 'blocked') {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting: nothing to unblock.
    }
    await work.catch(() => undefined);
  }
  return result;
}

const policyText = JSON.stringify({ ...DEFAULT_POLICY, name: 'mine' });
const duplicateKey = (text: string, key: string) => text.replace(`"${key}":`, `"${key}": "shadowed", "${key}":`);

describe('--policy is a regular file, bounded, strict JSON', () => {
  it('a FIFO is POLICY_INVALID at once, not a read that never ends', async () => {
    const fifo = at('policy.fifo');
    if (!(await mkfifo(fifo))) return console.warn('skipped: no mkfifo on this system');
    const result = await settlesSoon(loadPolicy(fifo).then(() => 'loaded', (e: { code?: string }) => e.code ?? 'thrown'), fifo);
    expect(result).toBe('POLICY_INVALID');
  });

  it('a symbolic link is refused, not followed; a file over 1 MiB and a key given twice are refused', async () => {
    const real = write('policy.json', policyText);
    expect((await loadPolicy(real)).name).toBe('mine');
    const linked = await refusal(loadPolicy(link(real)));
    expect(linked.code).toBe('POLICY_INVALID');
    expect(linked.message).toMatch(/symbolic link/);
    const big = await refusal(loadPolicy(write('big.json', policyText.replace('"mine"', `"${'x'.repeat(1_100_000)}"`))));
    expect(big.code).toBe('POLICY_INVALID');
    expect(big.message).toMatch(/more than the 1 MiB/);
    const twice = await refusal(loadPolicy(write('twice.json', duplicateKey(policyText, 'name'))));
    expect(twice.code).toBe('POLICY_INVALID');
    expect(twice.message).toMatch(/appears twice/);
  });
});

describe('--calibration is a regular file, bounded, strict JSON', () => {
  it('a FIFO is CALIBRATION_INVALID at once', async () => {
    const fifo = at('calibration.fifo');
    if (!(await mkfifo(fifo))) return console.warn('skipped: no mkfifo on this system');
    const result = await settlesSoon(loadCalibration(fifo).then(() => 'loaded', (e: { code?: string }) => e.code ?? 'thrown'), fifo);
    expect(result).toBe('CALIBRATION_INVALID');
  });

  it('a symbolic link and a key given twice are CALIBRATION_INVALID', async () => {
    const text = `${JSON.stringify(calibrationDoc(), null, 1)}\n`;
    const real = write('calibration.json', text);
    expect((await loadCalibration(real)).n).toBe(calibrationDoc().n);
    expect((await refusal(loadCalibration(link(real)))).code).toBe('CALIBRATION_INVALID');
    const twice = await refusal(loadCalibration(write('twice.json', duplicateKey(text, 'n'))));
    expect(twice.code).toBe('CALIBRATION_INVALID');
    expect(twice.message).toMatch(/appears twice/);
  });
});

describe("a run's <zip>.sha256 and <zip>.provenance.json", () => {
  let zip: string;
  let zipSha: string;
  const codes = (r: VerifyResult) => (r.ok ? [] : r.problems.map((p) => p.code));
  /** verifyRun, closing what an accepted run unpacked. */
  const verify = async (options: { requireProvider?: boolean } = {}): Promise<VerifyResult> => {
    const result = await verifyRun(zip, options);
    if (result.ok) await result.run.close();
    return result;
  };
  beforeAll(async () => {
    zip = await writeZip(zipItems(render(validDraft())), path.join(tmp, 'h3-video-30054883436-1.zip'));
    zipSha = sha256(readFileSync(zip));
  });
  const clean = () => {
    for (const f of [`${zip}.sha256`, `${zip}.provenance.json`]) rmSync(f, { force: true });
  };

  it('a FIFO as <zip>.sha256 is DIGEST_MALFORMED at once; a symbolic link or an oversized sidecar too', async () => {
    clean();
    const sidecar = `${zip}.sha256`;
    if (await mkfifo(sidecar)) {
      const result = await settlesSoon(verify(), sidecar);
      expect(result === 'blocked' ? 'blocked' : codes(result)).toEqual(['DIGEST_MALFORMED']);
      rmSync(sidecar);
    } else console.warn('FIFO case skipped: no mkfifo on this system');
    const real = write('digest', `sha256:${zipSha}\n`);
    symlinkSync(real, sidecar);
    expect(codes(await verify())).toEqual(['DIGEST_MALFORMED']);
    rmSync(sidecar);
    writeFileSync(sidecar, `sha256:${zipSha}${' '.repeat(8192)}\n`);
    const big = await verify();
    expect(codes(big)).toEqual(['DIGEST_MALFORMED']);
    expect(big.ok ? '' : big.problems[0]!.message).toMatch(/more than the 4 KiB/);
    clean();
  });

  it('a FIFO, a symbolic link or a key given twice as <zip>.provenance.json is PROVENANCE_MALFORMED', async () => {
    clean();
    const file = `${zip}.provenance.json`;
    if (await mkfifo(file)) {
      const result = await settlesSoon(verify(), file);
      expect(result === 'blocked' ? 'blocked' : codes(result)).toEqual(['PROVENANCE_MALFORMED']);
      rmSync(file);
    } else console.warn('FIFO case skipped: no mkfifo on this system');
    const text = readFileSync(new URL('./archive/provenance-record.json', import.meta.url), 'utf8').replaceAll('@ZIP_SHA@', zipSha);
    writeFileSync(file, text);
    const accepted = await verify({ requireProvider: true });
    expect(codes(accepted)).toEqual([]);
    rmSync(file);
    symlinkSync(write('provenance.json', text), file);
    expect(codes(await verify())).toEqual(['PROVENANCE_MALFORMED']);
    rmSync(file);
    writeFileSync(file, duplicateKey(text, 'head_sha'));
    expect(codes(await verify())).toEqual(['PROVENANCE_MALFORMED']);
    clean();
  });
});
