/**
 * docs/api.md is generated from the sources (scripts/api-report.mjs). This fails when it is not
 * current, when an export has no documentation, or when a public signature names a type the
 * package does not export, so the reference and the TSDoc cannot drift from the code.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

  it('the check refuses a source file named in TSDoc, not a doc page, a package or a runtime', async () => {
    const { SOURCE_FILE, OPTIONS_TYPE } = (await import(pathToFileURL(`${ROOT}scripts/api-report.mjs`).href)) as { SOURCE_FILE: RegExp; OPTIONS_TYPE: RegExp };
    const named = (text: string) => text.match(SOURCE_FILE) ?? [];
    expect(named('The bundle folder. See output/atomic.ts for what happens when it exists.')).toEqual(['output/atomic.ts']);
    expect(named('the declarations in errors.ts; (pool/frame-capture.ts: the stills)')).toEqual(['errors.ts', 'pool/frame-capture.ts']);
    expect(named('loads dist/pool/worker-entry.cjs and index.d.ts')).toEqual(['dist/pool/worker-entry.cjs', 'index.d.ts']);
    expect(named('docs/report.md, "Policy"; Node.js 20.19; node:fs; media-fidelity/verify; 1.5 s')).toEqual([]);
    expect(['CompareOptions', 'WriteBundleSettings', 'CompareResult', 'OptionsOf'].filter((n) => OPTIONS_TYPE.test(n))).toEqual(['CompareOptions', 'WriteBundleSettings']);
  });

  it('CompareOptions documents every option and names no source file', () => {
    const api = readFileSync(`${ROOT}docs/api.md`, 'utf8');
    const section = api.slice(api.indexOf('### CompareOptions\n'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)![1]!.split('\n');
    const members = block.flatMap((line, i) => (/^  [a-zA-Z]+\??:/.test(line) ? [{ name: line.trim().split(/\??:/)[0]!, documented: /\*\/\s*$/.test(block[i - 1] ?? '') }] : []));
    expect(members.map((m) => m.name)).toEqual(expect.arrayContaining(['out', 'ffmpeg', 'signal', 'onProgress', 'metrics']));
    expect(members.filter((m) => !m.documented)).toEqual([]);
    expect(block.join('\n')).not.toMatch(/atomic\.ts|\.ts\b/);
  });

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
