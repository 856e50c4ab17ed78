/**
 * Where the JUnit file and the job summary may go (checked before any work), the atomic JUnit
 * write and the append-only summary.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendJobSummary, checkCiOutputs, writeJunitFile } from '../../src/ci/files.js';
import { refusal } from '../refusal.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-ci-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const at = (...p: string[]) => path.join(tmp, ...p);
mkdirSync(at('runs', 'h200'), { recursive: true });
mkdirSync(at('reports'));
const context = { out: at('bundle'), inputs: [at('runs', 'h200'), at('policy.json')] };

describe('checkCiOutputs', () => {
  it('accepts new files beside the bundle, in a folder still to be made, and an existing summary', async () => {
    writeFileSync(at('summary.md'), '# earlier step\n');
    await checkCiOutputs({ junit: at('reports', 'new', 'junit.xml'), summary: at('summary.md') }, context);
    await checkCiOutputs({ junit: at('junit.xml') }, context);
    expect(readFileSync(at('summary.md'), 'utf8')).toBe('# earlier step\n');
    expect(readdirSync(at('reports'))).toEqual([]);
  });

  it('refuses a place inside --out or an input, a folder, a link, the same file twice, and a folder it cannot write', async () => {
    const code = async (o: Parameters<typeof checkCiOutputs>[0]) => {
      const e = await refusal(checkCiOutputs(o, context));
      expect(e.code).toBe('CI_OUTPUT_INVALID');
      return e.message;
    };
    expect(await code({ junit: at('bundle', 'junit.xml') })).toMatch(/inside --out/);
    expect(await code({ summary: at('bundle') })).toMatch(/inside --out/);
    expect(await code({ junit: at('runs', 'h200', 'junit.xml') })).toMatch(/inside the input/);
    expect(await code({ junit: at('policy.json') })).toMatch(/inside the input/);
    expect(await code({ junit: at('reports') })).toMatch(/not a file/);
    symlinkSync(at('summary.md'), at('link.md'));
    expect(await code({ summary: at('link.md') })).toMatch(/symbolic link/);
    expect(await code({ junit: at('x.xml'), summary: at('x.xml') })).toMatch(/same file/);
    writeFileSync(at('a-file'), '');
    expect(await code({ junit: at('a-file', 'junit.xml') })).toMatch(/not a folder/);
    if (process.getuid?.() !== 0) {
      mkdirSync(at('read-only'), { mode: 0o555 });
      expect(await code({ junit: at('read-only', 'junit.xml') })).toMatch(/cannot write/);
    }
    expect(await code({ junit: '/proc/junit.xml' })).toMatch(/cannot write/);
  });
});

describe('writeJunitFile and appendJobSummary', () => {
  it('the JUnit file replaces what was there in one rename and leaves no temp file', async () => {
    const file = at('out', 'junit.xml');
    await writeJunitFile(file, '<a/>\n');
    await writeJunitFile(file, '<b/>\n');
    expect(readFileSync(file, 'utf8')).toBe('<b/>\n');
    expect(readdirSync(at('out'))).toEqual(['junit.xml']);
  });

  it('a JUnit file that cannot be written is CI_OUTPUT_INVALID, saying the bundle is complete', async () => {
    writeFileSync(at('plain-file'), '');
    const e = await refusal(writeJunitFile(at('plain-file', 'x', 'junit.xml'), '<a/>'));
    expect(e.code).toBe('CI_OUTPUT_INVALID');
    expect(e.message).toContain('the bundle itself is complete');
  });

  it('the summary is appended, never overwritten', async () => {
    const file = at('step-summary.md');
    writeFileSync(file, '# an earlier step\n');
    await appendJobSummary(file, '\n## one\n');
    await appendJobSummary(file, '\n## two\n');
    expect(readFileSync(file, 'utf8')).toBe('# an earlier step\n\n## one\n\n## two\n');
    expect(existsSync(at('never.md'))).toBe(false);
  });
});
