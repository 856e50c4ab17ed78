/**
 * A DEL (U+007F) that a run's ci.json carried escaped reaches report.json, the pages and
 * calibration.json as a string; every one of them must still be a file verify-bundle accepts
 * (JSON and seal files: text without control characters). A raw DEL in ci.json itself is refused
 * by verify (test/archive/bounded.test.ts), so the verbatim source copy never holds one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { fileKindProblem } from '../../src/bundle/file-kinds.js';
import { jsonText } from '../../src/bundle/json-text.js';
import { reportJsonText } from '../../src/bundle/write.js';
import { escapeDel } from '../../src/json-file.js';
import { renderReport } from '../../src/pages/page.js';
import { Report } from '../../src/schemas/report.js';
import { makeBundle, makeReport, sealDir } from './make-bundle.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-control-text-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const DEL = '\u007f';

describe('a DEL in run text', () => {
  it('report.json and the other JSON writers escape it, and the value parses back the same', () => {
    const value = { job: `smoke${DEL}job`, list: [`a${DEL}`, 1], [`k${DEL}`]: null };
    for (const text of [jsonText(value), escapeDel(JSON.stringify(value, null, 1))]) {
      expect(text.includes(DEL)).toBe(false);
      expect(text).toContain('smoke\\u007fjob');
      expect(JSON.parse(text)).toEqual(value);
      expect(fileKindProblem('json', Buffer.from(text))).toBeNull();
    }
    // Without the escape the same text is one verify-bundle refuses: the check above could fail.
    expect(fileKindProblem('json', Buffer.from(JSON.stringify(value)))).toMatch(/control characters/);
    // Text without a DEL is written as before, byte for byte.
    expect(jsonText({ job: 'smoke' })).toBe('{\n  "job": "smoke"\n}\n');
  });

  it('a bundle whose runs carry one in job and gpu_model passes verify-bundle', async () => {
    const report = Report.parse(makeReport());
    report.runs[0]!.job = `smoke${DEL}job`;
    report.runs[1]!.hardware.gpu_model = `B200${DEL}`;
    const dir = path.join(tmp, 'bundle');
    makeBundle(dir, renderReport(report, 'en'));
    writeFileSync(path.join(dir, 'index.zh.html'), renderReport(report, 'zh'));
    writeFileSync(path.join(dir, 'report.json'), reportJsonText(report));
    sealDir(dir);
    expect(readFileSync(path.join(dir, 'report.json'), 'utf8')).toContain('smoke\\u007fjob');
    const result = await verifyBundle(dir);
    expect(result.errors).toEqual([]);
  });
});
