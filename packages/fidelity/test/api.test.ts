/**
 * docs/api.md is generated from the sources (scripts/api-report.mjs). This fails when it is not
 * current, when an export has no documentation, or when a public signature names a type the
 * package does not export, so the reference and the TSDoc cannot drift from the code.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('API reference', () => {
  it('docs/api.md is current, every export is documented, no public type is left unexported', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, ['scripts/api-report.mjs', '--check'], { cwd: ROOT, maxBuffer: 16 << 20 }, (error, _stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
      });
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it("shows every overload a caller can use (compare's three: shard, bundle, either)", () => {
    const api = readFileSync(`${ROOT}docs/api.md`, 'utf8');
    const section = api.slice(api.indexOf('### compare\n'), api.indexOf('### countValidClips'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n');
    expect(block).toHaveLength(3);
    expect(block.map((l) => /Promise<[^>]+>$/.exec(l)?.[0])).toEqual(['Promise<PartialResult>', 'Promise<CompareResult>', 'Promise<CompareResult | PartialResult>']);
  });

  it('measurePair\'s return type and the run archive schemas are exported', async () => {
    const api = await import('../src/index.js');
    for (const name of ['MeasureOutcome', 'MeasureFailure', 'CiJson', 'PlanJson', 'RunJson', 'RunRecord', 'Report', 'Policy']) {
      expect(typeof (api as Record<string, unknown>)[name], name).toBe('object');
    }
    const outcome: import('../src/index.js').MeasureOutcome = { ok: false, failure: { code: 'INCOMPATIBLE_SIZE', message: 'the video streams differ in width or height' } };
    expect(api.MeasureOutcome.safeParse(outcome).success).toBe(true);
  });
});
