/**
 * The jq line of docs/report.md ("InferenceX's figures as one table") run on the committed reference
 * report: one CSV row per pair with `inferencex`, the header in compare_media's key order. Needs jq
 * (Debian's `jq`, which .ci/run installs); elsewhere, without it, the test says so and is skipped, never passed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InferencexMetrics } from '../../src/schemas/measurement.js';
import type { Report } from '../../src/schemas/report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const REFERENCE = path.join(ROOT, 'fixtures', 'reference', 'report.json');
const hasJq = !spawnSync('jq', ['--version']).error;
if (!hasJq && process.env.CI === 'true') throw new Error("docs/report.md's jq line must run on CI: jq not found (.ci/run installs it)");
if (!hasJq) console.warn('SKIPPED: the jq line of docs/report.md (jq not installed; apt-get install jq)');

/** The program of the documented jq command: the text between `jq -r '` and `' report.json`. */
function documentedProgram(): string {
  const doc = readFileSync(path.join(ROOT, 'docs', 'report.md'), 'utf8');
  const m = /```sh\njq -r '([\s\S]*?)' report\.json\n```/.exec(doc.slice(doc.indexOf("**InferenceX's figures as one table.**")));
  if (!m) throw new Error("docs/report.md has no jq line under \"InferenceX's figures as one table\"");
  return m[1]!;
}

(hasJq ? describe : describe.skip)("docs/report.md's jq line for InferenceX's figures", () => {
  it('prints every pair that has the figures, one row each, with the keys in order', () => {
    const csv = execFileSync('jq', ['-r', documentedProgram(), REFERENCE], { encoding: 'utf8' }).trimEnd().split('\n');
    const report = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Report;
    const pairs = report.comparisons.flatMap((c) => c.pairs.filter((p) => p.inferencex).map((p) => ({ c, p })));
    expect(pairs.length).toBeGreaterThan(0);
    expect(csv[0]).toBe(['baseline_run_id', 'candidate_run_id', 'slot_id', 'status', 'compatible', ...Object.keys(InferencexMetrics.shape)].map((k) => `"${k}"`).join(','));
    expect(csv.length).toBe(1 + pairs.length);
    const first = pairs[0]!;
    expect(csv[1]!.startsWith(`${first.c.baseline_run_id},${first.c.candidate_run_id},"${first.p.slot_id}","${first.p.status}",${first.p.inferencex!.compatible},`)).toBe(true);
  });
});
