import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-demo-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fidelity demo', () => {
  it('generates the synthetic runs, compares them and writes ./fidelity-demo, leaving no runs behind', async () => {
    const cwd = path.join(tmp, 'work');
    mkdirSync(cwd);
    const before = new Set(readdirSync(os.tmpdir()).filter((f) => f.startsWith('fidelity-demo-runs-')));
    const r = await cli(['demo', '--json'], { cwd });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { ok: boolean; index: string; comparisons: { candidate_gpu_model: string }[] };
    expect(doc.ok).toBe(true);
    expect(doc.comparisons.map((c) => c.candidate_gpu_model)).toEqual(['B200', 'H100']);
    expect(path.resolve(cwd, doc.index)).toBe(path.join(cwd, 'fidelity-demo', 'index.html'));
    expect(existsSync(path.join(cwd, 'fidelity-demo', 'index.html'))).toBe(true);
    expect(readdirSync(cwd)).toEqual(['fidelity-demo']);
    expect(readdirSync(os.tmpdir()).filter((f) => f.startsWith('fidelity-demo-runs-') && !before.has(f))).toEqual([]);
    const check = await cli(['verify-bundle', 'fidelity-demo'], { cwd });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^\d+ files, \d+ links verified\n$/);
    // The demo generates, calibrates and compares four runs: about a minute on 2 idle cores, more under load.
  }, 300_000);
});
