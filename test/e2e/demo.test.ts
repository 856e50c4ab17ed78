/**
 * `fidelity demo` end to end: the built CLI, run once for the suite in an empty folder
 * (test/shared/fixtures.ts demoBundle, which the browser test of the demo's page reads too).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoBundle } from '../shared/fixtures.js';
import { cli } from './helpers.js';

describe('fidelity demo', () => {
  it('generates the synthetic runs, compares them and writes ./fidelity-demo, leaving no runs behind', async () => {
    // The demo generates, calibrates and compares four runs: about a minute on 2 idle cores, more under load.
    const { dir, meta: r } = await demoBundle();
    expect(r.code, r.stderr).toBe(0);
    const cwd = path.join(dir, r.cwd);
    const doc = JSON.parse(r.stdout) as { ok: boolean; index: string; comparisons: { candidate_gpu_model: string }[] };
    expect(doc.ok).toBe(true);
    expect(doc.comparisons.map((c) => c.candidate_gpu_model)).toEqual(['B200', 'H100']);
    expect(path.resolve(cwd, doc.index)).toBe(path.join(cwd, 'fidelity-demo', 'index.html'));
    expect(r.cwdEntries).toEqual(['fidelity-demo']);
    expect(r.leftRuns).toEqual([]);
    const check = await cli(['verify-bundle', 'fidelity-demo'], { cwd });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^\d+ files, \d+ links verified\n$/);
  }, 900_000);
});
