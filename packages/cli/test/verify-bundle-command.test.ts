import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { capture } from './capture.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-cli-vb-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Intact and tampered bundles are checked end to end in test/e2e on a real compare() bundle.
describe('fidelity verify-bundle', () => {
  it('needs exactly one folder', async () => {
    const io = capture();
    expect(await main(['verify-bundle', '--json'], io)).toBe(2);
    expect(JSON.parse(io.stdout())).toMatchObject({ ok: false, errors: [{ code: 'USAGE' }] });
  });

  it('exits 2 on a folder that is not a bundle, with the reason code', async () => {
    const human = capture();
    expect(await main(['verify-bundle', tmp], human)).toBe(2);
    expect(human.stderr()).toContain('error BUNDLE_SEAL_MISSING: ');
    expect(human.stdout()).toBe('');
    const json = capture();
    expect(await main(['verify-bundle', path.join(tmp, 'absent'), '--json'], json)).toBe(2);
    expect(JSON.parse(json.stdout())).toEqual({ ok: false, files: 0, links: 0, errors: [{ code: 'BUNDLE_NOT_FOUND', message: expect.any(String) }] });
  });
});
