// writeBundleContents makes several pairs' files at once (BundleContents.concurrency): the bundle's
// bytes must not depend on how many, nor on which pair finishes first, and a failing pair must
// fail the bundle only once every other pair has stopped writing. No ffmpeg: the pair files come
// from a pairFiles callback (as merge's do), the report is the committed reference report.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDurable } from '../../src/output/files.js';
import { writeBundleContents, type BundleContents } from '../../src/bundle/write.js';
import { Report } from '../../src/schemas/report.js';

const reference = Report.parse(JSON.parse(await readFile(new URL('../../../../fixtures/reference/report.json', import.meta.url), 'utf8')));
const tmp = await mkdtemp(path.join(os.tmpdir(), 'fidelity-lanes-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

const pairCount = reference.comparisons.reduce((n, c) => n + c.pairs.length, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bundle of the reference report whose pair files finish in an order set by `delayOf` (ms per pair position). */
async function bundle(name: string, concurrency: number, delayOf: (i: number) => number, fail?: number) {
  const dir = path.join(tmp, name);
  let position = 0;
  const finished: number[] = [];
  const contents: BundleContents = {
    report: reference,
    media: [],
    sources: [],
    comparisonDirs: reference.comparisons.map((_, c) => `pairs/${c}`),
    ffmpeg: {},
    concurrency,
    pairFiles: async (pair, prefix, at) => {
      const i = position++;
      await sleep(delayOf(i));
      if (i === fail) throw new Error(`pair ${i} failed`);
      const rel = `${prefix}/note.txt`;
      await writeDurable(path.join(at, ...rel.split('/')), `${pair.slot_id}\n`);
      finished.push(i);
      return { frames_csv: rel };
    },
    pages: (report) => [{ path: 'index.html', text: JSON.stringify(report.comparisons.map((c) => c.pairs.map((p) => p.files))) }],
  };
  const written = await writeBundleContents(dir, contents);
  return { written, finished, seal: await readFile(path.join(dir, 'SHA256SUMS'), 'utf8'), page: await readFile(path.join(dir, 'index.html'), 'utf8') };
}

describe('pair files made several at once', () => {
  it('gives the same bytes for one lane and for three lanes finishing out of order', async () => {
    expect(pairCount).toBeGreaterThanOrEqual(3);
    const one = await bundle('one', 1, () => 0);
    // Earlier pairs take longer, so with three lanes later pairs finish first.
    const three = await bundle('three', 3, (i) => (pairCount - i) * 3);
    expect(one.finished).toEqual([...Array(pairCount).keys()]);
    expect(three.finished).not.toEqual(one.finished);
    expect(three.seal).toBe(one.seal);
    expect(three.page).toBe(one.page);
    expect(three.written.report).toEqual(one.written.report);
  });

  it('fails with the pair that failed, after the other lanes have stopped', async () => {
    const dir = path.join(tmp, 'failing');
    let error: unknown;
    try {
      await bundle('failing', 3, (i) => (i === 0 ? 1 : 20), 0);
    } catch (e) {
      error = e;
    }
    expect(String(error)).toContain('pair 0 failed');
    // Nothing is sealed, and no lane is still writing: the folder no longer changes.
    const names = await readdir(dir);
    expect(names).not.toContain('SHA256SUMS');
    const listing = JSON.stringify(await readdir(dir, { recursive: true }));
    await sleep(60);
    expect(JSON.stringify(await readdir(dir, { recursive: true }))).toBe(listing);
  });
});
