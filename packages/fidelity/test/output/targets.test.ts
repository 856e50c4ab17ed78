/**
 * Every output path against every input by device and inode as well as by
 * path (a hard link, the files beside an archive), and the name and path
 * limits, all decided before any run is read (output/targets.ts), through
 * the three guards that use them: claimOut (--out, --partial), checkOutFiles
 * (calibrate --out, --policy-out) and checkCiOutputs (--junit, --summary).
 */
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendJobSummary, checkCiOutputs } from '../../src/ci/files.js';
import { claimOut } from '../../src/output/out-guard.js';
import { checkOutFiles } from '../../src/output/out-file.js';
import { inputIdentities, MAX_OUTPUT_NAME_BYTES, outputPathProblem, targetClash } from '../../src/output/targets.js';
import { refusal } from '../refusal.js';

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'fidelity-targets-')));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const at = (...p: string[]) => path.join(tmp, ...p);

// Inputs: a zip with its digest (no provenance file yet), a run folder, a policy file.
mkdirSync(at('runs', 'h200', 'media'), { recursive: true });
writeFileSync(at('runs', 'h200', 'ci.json'), '{"job":"x"}\n');
writeFileSync(at('runs', 'h200', 'media', 'a.mp4'), 'mp4');
writeFileSync(at('runs', 'b.zip'), 'PK zip bytes');
writeFileSync(at('runs', 'b.zip.sha256'), `sha256:${'0'.repeat(64)}  b.zip\n`);
writeFileSync(at('policy.json'), '{}');
const INPUTS = [at('runs', 'h200'), at('runs', 'b.zip'), at('policy.json')];
// Hard links, made outside every input: another name for an input's bytes.
mkdirSync(at('elsewhere'));
linkSync(at('runs', 'b.zip'), at('elsewhere', 'zip-link'));
linkSync(at('runs', 'h200', 'ci.json'), at('elsewhere', 'ci-link'));
linkSync(at('runs', 'h200', 'media', 'a.mp4'), at('elsewhere', 'mp4-link'));
linkSync(at('runs', 'b.zip.sha256'), at('elsewhere', 'digest-link'));
const before = () => ({ zip: readFileSync(at('runs', 'b.zip'), 'utf8'), digest: readFileSync(at('runs', 'b.zip.sha256'), 'utf8'), ci: readFileSync(at('runs', 'h200', 'ci.json'), 'utf8') });
const ORIGINAL = before();

describe('targetClash (by device and inode, and the files beside an input)', () => {
  it('finds a hard link of an input archive, of a file in an input folder and of its digest, and the digest and provenance paths', async () => {
    const ids = await inputIdentities(INPUTS);
    expect((await targetClash('--x', at('elsewhere', 'zip-link'), 'file', ids))?.message).toMatch(/same file as the input .*b\.zip \(device \d+, inode \d+/);
    expect((await targetClash('--x', at('elsewhere', 'ci-link'), 'file', ids))?.message).toMatch(/same file as its file ci\.json of the input .*h200/);
    expect((await targetClash('--x', at('elsewhere', 'mp4-link'), 'file', ids))?.message).toMatch(/its file media\/a\.mp4/);
    expect((await targetClash('--x', at('elsewhere', 'digest-link'), 'file', ids))?.message).toMatch(/its digest file/);
    // Beside the archive, by path: the digest that exists, and the provenance file that does not yet.
    expect((await targetClash('--x', at('runs', 'b.zip.sha256'), 'file', ids))?.message).toMatch(/is its digest file \(<archive>\.sha256\) of the input/);
    expect((await targetClash('--x', at('runs', 'b.zip.provenance.json'), 'file', ids))?.message).toMatch(/is its provenance file/);
    // An unrelated file, and a new file beside the inputs, are fine.
    writeFileSync(at('elsewhere', 'mine.md'), '');
    expect(await targetClash('--x', at('elsewhere', 'mine.md'), 'file', ids)).toBeNull();
    expect(await targetClash('--x', at('runs', 'new.xml'), 'file', ids)).toBeNull();
  });

  it('a folder output that is a folder above an input would replace it', async () => {
    const ids = await inputIdentities(INPUTS);
    expect(await targetClash('--out', at('runs'), 'folder', ids)).toMatchObject({ kind: 'contains' });
    expect(await targetClash('--out', at('runs', 'h200', 'media'), 'folder', ids)).toMatchObject({ kind: 'inside' });
    expect(await targetClash('--out', at('bundle'), 'folder', ids)).toBeNull();
  });
});

describe('outputPathProblem (limits before any work)', () => {
  it('refuses a 300-byte name, a 5000-byte path, and a 224-byte name whose temp name would pass 255 bytes', async () => {
    expect(await outputPathProblem(at('x'.repeat(300) + '.xml'), 'file')).toMatch(/name of 304 bytes/);
    expect(await outputPathProblem(at(...Array.from({ length: 50 }, () => 'd'.repeat(99)), 'j.xml'), 'file')).toMatch(/bytes long as an absolute path/);
    expect(await outputPathProblem(at('n'.repeat(220) + '.xml'), 'file')).toMatch(new RegExp(`name of 224 bytes .*at most ${MAX_OUTPUT_NAME_BYTES} \\(255 less 64`));
    expect(await outputPathProblem(at('n'.repeat(MAX_OUTPUT_NAME_BYTES)), 'file')).toBeNull();
    // Bytes, not characters: 100 three-byte characters are 300 bytes.
    expect(await outputPathProblem(at('\u4e2d'.repeat(100)), 'file')).toMatch(/name of 300 bytes/);
  });

  it('refuses a file path ending in "/" or "." and a folder name on the path over 255 bytes', async () => {
    expect(await outputPathProblem(`${at('dir', 'new.xml')}/`, 'file')).toMatch(/ends with "\/"/);
    expect(await outputPathProblem(`${at('dir')}/..`, 'file')).toMatch(/ends with "\.\."/);
    expect(await outputPathProblem(at('f'.repeat(256), 'a.xml'), 'file')).toMatch(/folder name of 256 bytes/);
    // A folder output keeps room for the files of a bundle below it.
    const deep = at(...Array.from({ length: 38 }, () => 'd'.repeat(99)));
    expect(await outputPathProblem(path.join(deep, 'j.xml'), 'file')).toBeNull();
    expect(await outputPathProblem(path.join(deep, 'bundle'), 'folder')).toMatch(/for the files in it/);
  });
});

describe('the guards refuse before anything is written', () => {
  it('--junit and --summary: a hard link of an input zip or ci.json, the digest beside an input: CI_OUTPUT_INVALID, inputs unchanged', async () => {
    const context = { out: at('bundle'), inputs: INPUTS };
    for (const [what, file] of [
      ['summary', at('elsewhere', 'zip-link')],
      ['summary', at('elsewhere', 'ci-link')],
      ['summary', at('runs', 'b.zip.sha256')],
      ['junit', at('runs', 'b.zip.sha256')],
      ['junit', at('runs', 'b.zip.provenance.json')],
    ] as const) {
      const e = await refusal(checkCiOutputs(what === 'junit' ? { junit: file } : { summary: file }, context));
      expect([file, e.code]).toEqual([file, 'CI_OUTPUT_INVALID']);
    }
    expect(before()).toEqual(ORIGINAL);
  });

  it('--junit and --summary past the limits, or ending in "/": OUT_PATH_INVALID, and nothing made', async () => {
    const context = { out: at('bundle'), inputs: INPUTS };
    for (const file of [at('j'.repeat(300)), at('n'.repeat(220) + '.xml'), at(...Array.from({ length: 50 }, () => 'd'.repeat(99)), 'j.xml'), `${at('dir', 'new.xml')}/`]) {
      expect((await refusal(checkCiOutputs({ junit: file }, context))).code).toBe('OUT_PATH_INVALID');
      expect((await refusal(checkCiOutputs({ summary: file }, context))).code).toBe('OUT_PATH_INVALID');
    }
    expect(readdirSync(tmp).sort()).toEqual(['elsewhere', 'policy.json', 'runs']);
  });

  it('a summary in folders still to be made passes the check and is appended there, folders made', async () => {
    const file = at('new', 'dir', 's.md');
    await checkCiOutputs({ summary: file }, { out: at('bundle'), inputs: INPUTS });
    await appendJobSummary(file, '## one\n');
    expect(readFileSync(file, 'utf8')).toBe('## one\n');
    rmSync(at('new'), { recursive: true });
  });

  it('calibrate --out / --policy-out: a hard link of a run file is OUT_INSIDE_INPUT; a long name OUT_PATH_INVALID', async () => {
    const out = (file: string) => [{ file, option: '--out', isOurs: () => true, maxBytes: 1024 }];
    expect((await refusal(checkOutFiles(out(at('elsewhere', 'ci-link')), INPUTS, true))).message).toMatch(/--out .*ci-link is the same file as its file ci\.json/);
    expect((await refusal(checkOutFiles(out(at('elsewhere', 'zip-link')), INPUTS, true))).code).toBe('OUT_INSIDE_INPUT');
    expect((await refusal(checkOutFiles(out(at('c'.repeat(200) + '.json')), INPUTS, true))).code).toBe('OUT_PATH_INVALID');
    expect(before()).toEqual(ORIGINAL);
  });

  it('--out: the digest or provenance path beside an input is OUT_INSIDE_INPUT; a path too long for a bundle is OUT_PATH_INVALID', async () => {
    const inspect = async () => undefined;
    expect((await refusal(claimOut(at('runs', 'b.zip.provenance.json'), INPUTS, false, inspect))).code).toBe('OUT_INSIDE_INPUT');
    expect((await refusal(claimOut(at('runs', 'b.zip.sha256'), INPUTS, false, inspect))).code).toBe('OUT_INSIDE_INPUT');
    const e = await refusal(claimOut(at(...Array.from({ length: 38 }, () => 'd'.repeat(99)), 'partial'), INPUTS, false, inspect, '--partial'));
    expect([e.code, e.message.startsWith('--partial ')]).toEqual(['OUT_PATH_INVALID', true]);
    expect(readdirSync(at('runs')).sort()).toEqual(['b.zip', 'b.zip.sha256', 'h200']);
  });
});
