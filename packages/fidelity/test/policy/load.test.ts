import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FidelityError } from '../../src/errors.js';
import { DEFAULT_POLICY } from '../../src/policy/default.js';
import { loadPolicy } from '../../src/policy/load.js';
import { refusal as refused } from '../refusal.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-policy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
}

async function refusal(p: string): Promise<FidelityError> {
  const error = await refused(loadPolicy(p));
  expect(error.code).toBe('POLICY_INVALID');
  return error;
}

describe('loadPolicy', () => {
  it('loads a valid policy file, defaulting enabled to true', async () => {
    const checks = DEFAULT_POLICY.checks.map(({ enabled: _enabled, ...rest }) => rest);
    const p = file('ok.json', JSON.stringify({ ...DEFAULT_POLICY, name: 'mine', checks }));
    const policy = await loadPolicy(p);
    expect(policy.name).toBe('mine');
    expect(policy.checks.every((c) => c.enabled)).toBe(true);
  });

  it('refuses a missing file and invalid JSON with POLICY_INVALID', async () => {
    expect((await refusal(path.join(tmp, 'absent.json'))).message).toMatch(/cannot read policy file/);
    expect((await refusal(file('bad.json', '{ "schema_version": 1,'))).message).toMatch(/not valid JSON/);
  });

  it('names every schema problem by its JSON path', async () => {
    const bad = { ...DEFAULT_POLICY, calibration_status: 'maybe', checks: [{ ...DEFAULT_POLICY.checks[0], threshold: 'high' }] };
    const error = await refusal(file('schema.json', JSON.stringify(bad)));
    const paths = error.problems.map((p) => p.where?.path);
    expect(paths).toContain('calibration_status');
    expect(paths).toContain('checks[0].threshold');
  });

  it('refuses a metric outside the check family and a check given twice', async () => {
    const bad = { ...DEFAULT_POLICY, checks: [{ ...DEFAULT_POLICY.checks[0], metric: 'audio.rms_ratio' }, DEFAULT_POLICY.checks[0]] };
    const error = await refusal(file('family.json', JSON.stringify(bad)));
    expect(error.problems.map((p) => p.where?.path)).toEqual(['checks[0].metric', 'checks[1].name']);
  });
});
