import { appendFileSync, copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { verifyBundle } from '../../src/bundle-check/verify.js';
import { reportJsonText } from '../../src/bundle/write.js';
import type { Report } from '../../src/schemas/report.js';
import { BG, makeBundle, PAGE, sealDir } from './make-bundle.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-verify-bundle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

function bundle(page?: string): string {
  const dir = path.join(tmp, `b${n++}`);
  makeBundle(dir, page);
  return dir;
}

const codes = async (dir: string) => (await verifyBundle(dir)).errors.map((e) => e.code);

describe('verifyBundle', () => {
  it('accepts an intact bundle and counts files and links', async () => {
    const result = await verifyBundle(bundle());
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.files).toBe(15);
    // index.html: css url, report.json, index.zh.html, video, data image, https run, run.json = 7; zh page 1;
    // report.json: 2 sources_dir + 2 media + 1 pair file + 2x2 run links = 9.
    expect(result.links).toBe(17);
  });

  it('finds a changed byte, a deleted file, an added file and an edited seal', async () => {
    const changed = bundle();
    const media = readFileSync(path.join(changed, 'SHA256SUMS'), 'utf8').split('\n').find((l) => l.includes('media/'))!.slice(66);
    const bytes = readFileSync(path.join(changed, media));
    bytes[0] = bytes[0]! ^ 1;
    writeFileSync(path.join(changed, media), bytes);
    expect(await codes(changed)).toEqual(['BUNDLE_FILE_CHANGED']);

    const deleted = bundle();
    unlinkSync(path.join(deleted, BG));
    // The link to it resolves against the seal: the one problem is the missing file.
    expect(await codes(deleted)).toEqual(['BUNDLE_FILE_MISSING']);

    const added = bundle();
    writeFileSync(path.join(added, 'extra.txt'), 'x');
    expect(await codes(added)).toEqual(['BUNDLE_FILE_EXTRA']);

    const edited = bundle();
    const seal = readFileSync(path.join(edited, 'SHA256SUMS'), 'utf8');
    writeFileSync(path.join(edited, 'SHA256SUMS'), seal.replace(/^./, (c) => (c === '0' ? '1' : '0')));
    expect(await codes(edited)).toEqual(['BUNDLE_FILE_CHANGED']);

    const dropped = bundle();
    writeFileSync(path.join(dropped, 'SHA256SUMS'), seal.split('\n').slice(1).join('\n'));
    expect((await codes(dropped))[0]).toBe('BUNDLE_FILE_EXTRA');

    const garbled = bundle();
    appendFileSync(path.join(garbled, 'SHA256SUMS'), 'not a line\n');
    expect(await codes(garbled)).toEqual(['BUNDLE_SEAL_MALFORMED']);

    const unsealed = bundle();
    unlinkSync(path.join(unsealed, 'SHA256SUMS'));
    expect(await codes(unsealed)).toEqual(['BUNDLE_SEAL_MISSING']);
  });

  it('accepts WebP stills named by report.json and shown by the page, and refuses a forged one', async () => {
    const still = 'pairs/2-1/measurement-r000-c000/worst.webp';
    const page = PAGE.replace('<video preload="none" src=', `<video preload="none" poster="${still}" src=`).replace('</body>', `<img src="${still}" alt=""></body>`);
    expect(page).toContain(`poster="${still}"`);
    const webp = await sharp({ create: { width: 16, height: 8, channels: 3, background: { r: 200, g: 30, b: 30 } } }).webp({ quality: 80 }).toBuffer();
    const withStill = (): string => {
      const dir = bundle(page);
      writeFileSync(path.join(dir, ...still.split('/')), webp);
      const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
      report.comparisons[0]!.pairs[0]!.files = { ...report.comparisons[0]!.pairs[0]!.files, baseline_worst_webp: still, candidate_worst_webp: still };
      writeFileSync(path.join(dir, 'report.json'), reportJsonText(report));
      sealDir(dir);
      return dir;
    };
    const ok = withStill();
    expect(await codes(ok)).toEqual([]);
    expect((await sharp(path.join(ok, ...still.split('/'))).metadata()).format).toBe('webp');

    // Other bytes under the sealed name.
    const forged = withStill();
    writeFileSync(path.join(forged, ...still.split('/')), Buffer.concat([webp.subarray(0, 12), Buffer.from('<script>alert(1)</script>')]));
    expect(await codes(forged)).toEqual(['BUNDLE_FILE_CHANGED']);
    // A still that was never sealed, and one the page and report.json name but the bundle lacks.
    const extra = withStill();
    writeFileSync(path.join(extra, 'pairs/2-1/measurement-r000-c000/abs-diff.webp'), webp);
    expect(await codes(extra)).toEqual(['BUNDLE_FILE_EXTRA']);
    const missing = withStill();
    unlinkSync(path.join(missing, ...still.split('/')));
    sealDir(missing);
    expect(new Set(await codes(missing))).toEqual(new Set(['BUNDLE_LINK_BROKEN']));
    // A "still" a browser would open as a document that runs script is refused as before, whatever report.json calls it.
    const svg = withStill();
    writeFileSync(path.join(svg, 'pairs/2-1/measurement-r000-c000/worst.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("x")</script></svg>');
    sealDir(svg);
    expect(await codes(svg)).toEqual(['BUNDLE_PAGE_TYPE']);
  });

  it('refuses a symbolic link inside the bundle', async () => {
    const dir = bundle();
    symlinkSync('/etc/hostname', path.join(dir, 'link.txt'));
    expect(await codes(dir)).toEqual(['BUNDLE_FILE_EXTRA']);
  });

  it('refuses broken and outside links even when the seal is consistent', async () => {
    const cases: [string, string][] = [
      ['<a href="missing.html">', 'BUNDLE_LINK_BROKEN'],
      ['<a href="../escape.html">', 'BUNDLE_LINK_BROKEN'],
      ['<a href="sources/1-1/">folder</a>', 'BUNDLE_LINK_BROKEN'],
      ['<script src="http://github.com/x.js"></script>', 'BUNDLE_PAGE_SCRIPT'],
      ['<img src="https://cdn.example/x.png">', 'BUNDLE_LINK_EXTERNAL'],
      ['<a href="javascript:alert(1)">', 'BUNDLE_LINK_EXTERNAL'],
      ['<link rel="stylesheet" href="//fonts.example/css">', 'BUNDLE_LINK_EXTERNAL'],
    ];
    for (const [html, code] of cases) {
      const dir = bundle(PAGE.replace('</body>', `${html}</body>`));
      expect(await codes(dir), html).toEqual([code]);
    }
  });

  it('refuses report.json paths that are not sealed files', async () => {
    const dir = bundle();
    unlinkSync(path.join(dir, 'pairs/2-1/measurement-r000-c000/frames.csv'));
    sealDir(dir);
    const result = await verifyBundle(dir);
    expect(result.errors.map((e) => [e.code, e.where?.path])).toEqual([['BUNDLE_LINK_BROKEN', 'comparisons[0].pairs[0].files.frames_csv']]);
  });

  it('reports a folder that is not there', async () => {
    expect(await codes(path.join(tmp, 'nope'))).toEqual(['BUNDLE_NOT_FOUND']);
  });
});

describe('a bundle holds only the file kinds compare writes', () => {
  // compare(h200, [b200], { threads: 2 }) of the committed fixtures, shared with the other files of the run:
  // read here, copied before any edit.
  let real = '';
  beforeAll(async () => {
    const { fixtureBundle } = await import('../../../../test/shared/fixtures.js');
    real = (await fixtureBundle(['b200'])).dir;
  }, 120_000);

  /** A copy of the real bundle changed by `edit` (which may also change report.json) and resealed. */
  function doctored(edit: (dir: string, report: Report) => void): string {
    const dir = path.join(tmp, `doctored-${n++}`);
    cpSync(real, dir, { recursive: true });
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report;
    edit(dir, report);
    writeFileSync(path.join(dir, 'report.json'), reportJsonText(report));
    sealDir(dir);
    return dir;
  }
  const pairWithFiles = (r: Report) => r.comparisons[0]!.pairs.find((p) => p.files.abs_diff_webp)!;

  it('accepts the bundle compare wrote', async () => {
    expect((await verifyBundle(real)).errors).toEqual([]);
  });

  it('a sealed page of its own (a copy of index.html) named by a pair\'s files: BUNDLE_FILE_KIND', async () => {
    const dir = doctored((d, r) => {
      writeFileSync(path.join(d, 'report.html'), readFileSync(path.join(d, 'index.html')));
      pairWithFiles(r).files.report_html = 'report.html';
    });
    expect(await codes(dir)).toContain('BUNDLE_FILE_KIND');
  });

  it('PNG bytes named .webp, text named .flac, and a file where compare writes none: BUNDLE_FILE_KIND', async () => {
    const png = doctored((d, r) => {
      const p = pairWithFiles(r);
      copyFileSync(path.join(d, p.files.ssim_heatmap_png!), path.join(d, p.files.abs_diff_webp!));
    });
    expect(await codes(png)).toEqual(['BUNDLE_FILE_KIND']);
    const flac = doctored((d, r) => {
      const p = r.comparisons[0]!.pairs.find((x) => x.files.audio_diff_flac ?? x.files.audio_diff_normalized_flac)!;
      writeFileSync(path.join(d, (p.files.audio_diff_flac ?? p.files.audio_diff_normalized_flac)!), 'not a flac');
    });
    expect(await codes(flac)).toEqual(['BUNDLE_FILE_KIND']);
    const extra = doctored((d) => writeFileSync(path.join(d, 'media', 'notes.txt'), 'sealed, but no file compare writes'));
    expect(await codes(extra)).toEqual(['BUNDLE_FILE_KIND']);
  });

  it('a symbolic link as SHA256SUMS is refused, not followed', async () => {
    const dir = doctored(() => undefined);
    copyFileSync(path.join(dir, 'SHA256SUMS'), path.join(tmp, `seal-${n}`));
    unlinkSync(path.join(dir, 'SHA256SUMS'));
    symlinkSync(path.join(tmp, `seal-${n}`), path.join(dir, 'SHA256SUMS'));
    const result = await verifyBundle(dir);
    expect(result.ok).toBe(false);
    expect(result.errors[0]!.message).toMatch(/symbolic link/);
  });
});
