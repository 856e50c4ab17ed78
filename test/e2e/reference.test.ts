/**
 * The guard against a silent metric change: a fresh comparison of the committed fixtures is diffed
 * exactly against fixtures/reference/report.json (scripts/reference-report.mjs --check), and the
 * reference can only have been made by the script, which writes its sha256 into CHANGELOG.md with
 * the reason. A change of any measured value fails here until the reference is regenerated on
 * purpose (docs/diff.md, "The reference report").
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, sha256 } from './helpers.js';

const SCRIPT = path.join(ROOT, 'scripts', 'reference-report.mjs');
const REFERENCE = path.join(ROOT, 'fixtures', 'reference', 'report.json');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-reference-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function script(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: ROOT, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('the fixture reference report', () => {
  it('a fresh comparison of the fixtures measures exactly what the reference holds', async () => {
    const r = await script(['--check']);
    // On failure the message is the diff itself: which pair, which metric, old and new.
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('Result: unchanged');
    expect(r.stdout).toMatch(/compared: 3 runs, 2 comparisons, 20 pairs, \d+ values; exact/);
  });

  it('is the one CHANGELOG.md names: a regeneration without its line fails here', () => {
    const digest = sha256(readFileSync(REFERENCE));
    expect(readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'), `CHANGELOG.md has no line for reference sha256 ${digest}: regenerate with npm run reference -- --reason "..."`).toContain(`sha256 \`${digest}\``);
  });

  it('is regenerated only with a reason, which goes into the changelog with the metrics that changed', async () => {
    const reference = path.join(tmp, 'report.json');
    const changelog = path.join(tmp, 'CHANGELOG.md');
    // A reference one value away from what the fixtures measure: as if a metric had moved.
    const text = readFileSync(REFERENCE, 'utf8');
    const moved = text.replace(/"mae": (0\.\d+)/, (_, v: string) => `"mae": ${Number(v) * 2}`);
    expect(moved).not.toBe(text);
    writeFileSync(reference, moved);
    writeFileSync(changelog, '# Changelog\n\n## Unreleased\n\n### Reference report\n');
    const usage = await script(['--reference', reference, '--changelog', changelog]);
    expect(usage.code).toBe(2);
    const short = await script(['--reason', 'mae', '--reference', reference, '--changelog', changelog]);
    expect(short.code).toBe(2);
    expect(readFileSync(reference, 'utf8')).toBe(moved);
    const check = await script(['--check', '--reference', reference]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/video\.mae: 0\.\d+ -> 0\.\d+/);

    const made = await script(['--reason', 'mae: a test moves one value', '--reference', reference, '--changelog', changelog]);
    expect(made.code, made.stderr).toBe(0);
    const now = readFileSync(reference);
    expect(now.equals(readFileSync(REFERENCE))).toBe(true);
    const log = readFileSync(changelog, 'utf8');
    expect(log).toContain(`sha256 \`${sha256(now)}\`: mae: a test moves one value. Values that changed, with how many pairs, comparisons or runs: \`video.mae\` (1).`);
    expect(log.startsWith('# Changelog\n\n## Unreleased\n\n### Reference report\n\n- Reference report ')).toBe(true);
  });
});
