/// <reference lib="dom" />
/**
 * The demo's page in a real browser (Debian's Chromium, playwright-core, file://): a campaign of 80
 * pairs, most of them passed, must read as a page, not a scroll. Its height at 1280 px is measured
 * and held under a bound; on a phone nothing scrolls sideways and a pair's checks table fits whole;
 * an invalid pair's videos show their first frame, or say that nothing decodes.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, PAGE_FILE } from '../../packages/fidelity/src/pages/i18n.js';
import type { Lang } from '../../packages/fidelity/src/pages/i18n.js';
import { Report } from '../../packages/fidelity/src/schemas/report.js';
import { demoBundle } from '../shared/fixtures.js';

const CHROMIUM = process.env.FIDELITY_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const VIEWPORTS: Record<'desktop' | 'phone', BrowserContextOptions> = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};
/**
 * The demo's English page at 1280 px was 18,731 px tall when every pair was listed twice at full
 * height (80 overview rows of three lines, then 80 sections); it must stay well below that.
 */
const MAX_DESKTOP_HEIGHT = 12_000;

const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true') throw new Error(`Chromium is required for the browser tests and was not found at ${CHROMIUM}.`);
  console.warn(`SKIPPED: browser tests need Chromium at ${CHROMIUM} (apt-get install -y chromium, or set FIDELITY_CHROMIUM).`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-demo-page-'));
/** Set FIDELITY_SCREENSHOTS=<dir> to keep the screenshots; otherwise they go with the temp folder. */
const shots = process.env.FIDELITY_SCREENSHOTS ?? path.join(tmp, 'screenshots');
let browser: Browser;
let dir: string;
let report: Report;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  mkdirSync(shots, { recursive: true });
  const demo = await demoBundle();
  expect(demo.meta.code, demo.meta.stderr).toBe(0);
  dir = path.join(demo.dir, demo.meta.bundle);
  report = Report.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function open(bundle: string, lang: Lang, view: 'desktop' | 'phone', hash = ''): Promise<{ page: Page; problems: string[]; mp4s: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ ...VIEWPORTS[view], locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  const problems: string[] = [];
  const mp4s: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (r) => {
    if (r.url().endsWith('.mp4')) mp4s.push(r.url());
  });
  await page.goto(pathToFileURL(path.join(bundle, PAGE_FILE[lang])).href + hash, { waitUntil: 'load' });
  return { page, problems, mp4s, close: () => context.close() };
}

describe.skipIf(!HAVE_CHROMIUM)('the demo page', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`is well under ${MAX_DESKTOP_HEIGHT} px tall at 1280 px, and its worst-first table reaches every pair (${lang})`, async () => {
      const { page, problems, mp4s, close } = await open(dir, lang, 'desktop');
      try {
        expect(report.comparisons.flatMap((c) => c.pairs)).toHaveLength(80);
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        console.log(`demo page ${lang}, 1280 px wide: ${height} px tall`);
        expect(height).toBeLessThanOrEqual(MAX_DESKTOP_HEIGHT);
        const links = new Set(await page.locator('#overview tbody a[href^="#pair-"]').evaluateAll((as) => as.map((a) => a.getAttribute('href'))));
        const anchors = report.comparisons.flatMap((c, ci) => c.pairs.map((p) => `#pair-${ci}-${p.slot_id}`));
        expect([...links].sort()).toEqual([...anchors].sort());
        // A passed pair's section is behind its group's one line until opened.
        const passed = page.locator(`#pair-1-${report.comparisons[1]!.pairs.find((p) => p.status === 'passed')!.slot_id}`);
        expect(await passed.evaluate((d) => ({ group: (d.parentElement!.closest('details.pair-group') as HTMLDetailsElement | null)?.open ?? null, shown: d.checkVisibility() }))).toEqual({ group: false, shown: false });
        await page.screenshot({ path: path.join(shots, `demo-${lang}-desktop.png`), fullPage: true });
        expect(mp4s).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    });

    it(`fits a phone: no sideways scroll, and a failed pair's checks table shows its outcome column whole (${lang})`, async () => {
      const failed = report.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
      const { page, problems, close } = await open(dir, lang, 'phone', `#pair-0-${failed.slot_id}`);
      try {
        const width = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
        expect(width.doc).toBeLessThanOrEqual(width.view);
        const table = page.locator(`#pair-0-${failed.slot_id} table.checks`);
        await expect.poll(() => table.isVisible()).toBe(true);
        const heads = await table.locator('thead th').allInnerTexts();
        expect(heads.at(-1)).toBe(messages(lang).outcome);
        const cells = await table.locator('th, td').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
        for (const right of cells) expect(right).toBeLessThanOrEqual(width.view);
        const box = await table.evaluate((t) => ({ scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth }));
        expect(box.scroll).toBeLessThanOrEqual(box.client);
        // The noise table shows its verdict column before it scrolls: only the worst same-hardware value (for scale) may lie past the edge.
        const noise = page.locator(`#pair-0-${failed.slot_id} table.fits`).filter({ hasText: messages(lang).noise_worst });
        expect(await noise.locator('thead th').allInnerTexts()).toEqual([messages(lang).noise_metric, messages(lang).value, messages(lang).noise_beyond, messages(lang).noise_p, messages(lang).noise_worst]);
        const verdicts = await noise.locator('tr > :nth-child(3)').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
        for (const right of verdicts) expect(right).toBeLessThanOrEqual(width.view);
        await page.locator(`#pair-0-${failed.slot_id}`).screenshot({ path: path.join(shots, `demo-${lang}-phone-failed-pair.png`) });
        await page.screenshot({ path: path.join(shots, `demo-${lang}-phone.png`), fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    });
  }

  for (const lang of ['en', 'zh'] as const) {
    it(`fits a phone: an invalid pair's reasons, its clips and its media against the plan show whole, no table cut at the edge (${lang})`, async () => {
      // ocean-waves-s11 on B200: two reason codes and two fields off the plan, the widest of the demo's invalid pairs.
      const invalid = report.comparisons[0]!.pairs.find((p) => p.reasons.includes('INCOMPATIBLE_AUDIO_PRESENCE'))!;
      const { page, close } = await open(dir, lang, 'phone', `#pair-0-${invalid.slot_id}`);
      try {
        const tables = page.locator(`#pair-0-${invalid.slot_id} table`);
        await expect.poll(() => tables.first().isVisible()).toBe(true);
        const boxes = await tables.evaluateAll((ts) => ts.map((t) => ({ head: t.querySelector('th')?.textContent ?? '', scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth })));
        expect(boxes.length).toBeGreaterThanOrEqual(3);
        for (const b of boxes) expect(b.scroll, b.head).toBeLessThanOrEqual(b.client);
      } finally {
        await close();
      }
    });
  }

  it('shows a small clip scaled up to a watchable width with crisp pixels, its worst frame as the poster', async () => {
    const failed = report.comparisons[0]!.pairs.find((p) => p.status === 'failed')!;
    const { page, close } = await open(dir, 'en', 'desktop', `#pair-0-${failed.slot_id}`);
    try {
      const videos = page.locator(`#pair-0-${failed.slot_id} video`);
      await expect.poll(() => videos.first().isVisible()).toBe(true);
      const seen = await videos.evaluateAll((vs) => vs.map((v) => ({ w: v.getBoundingClientRect().width, h: v.getBoundingClientRect().height, render: getComputedStyle(v).imageRendering, poster: v.getAttribute('poster') })));
      expect(seen).toHaveLength(2);
      for (const v of seen) {
        expect(v.w).toBeGreaterThanOrEqual(320);
        expect(v.w / v.h).toBeCloseTo(failed.video!.width / failed.video!.height, 1);
        expect(v.render).toBe('pixelated');
        expect(v.poster).toMatch(/worst\.webp$/);
      }
    } finally {
      await close();
    }
  });

  it("shows an invalid pair's first frames once it is opened, loading only its own files", async () => {
    // caption-markup-s29 on B200: both clips are there, with different frame counts.
    const invalid = report.comparisons[0]!.pairs.find((p) => p.reasons.includes('INCOMPATIBLE_FRAME_COUNT'))!;
    expect(invalid.status).toBe('invalid');
    const { page, mp4s, problems, close } = await open(dir, 'en', 'desktop');
    try {
      expect(mp4s).toEqual([]);
      const section = page.locator(`#pair-0-${invalid.slot_id}`);
      await section.locator('summary').first().click();
      const videos = section.locator('video');
      expect(await videos.count()).toBe(2);
      await expect.poll(() => videos.evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).readyState >= 2)), { timeout: 10_000 }).toEqual([true, true]);
      for (const w of await videos.evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).videoWidth))) expect(w).toBeGreaterThan(0);
      const own = [invalid.baseline_media!, invalid.candidate_media!].map((m) => pathToFileURL(path.join(dir, m)).href);
      for (const u of new Set(mp4s)) expect(own).toContain(u);
      await section.screenshot({ path: path.join(shots, 'demo-en-invalid-pair.png') });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says plainly that nothing decodes when a file is not a video, instead of a spinner', async () => {
    const invalid = report.comparisons[0]!.pairs.find((p) => p.reasons.includes('INCOMPATIBLE_FRAME_COUNT'))!;
    // A copy of the bundle whose candidate file of that pair is no video at all.
    const copy = path.join(tmp, 'broken');
    cpSync(dir, copy, { recursive: true });
    writeFileSync(path.join(copy, invalid.candidate_media!), 'not a video at all\n'.repeat(64));
    const { page, close } = await open(copy, 'en', 'desktop');
    try {
      const section = page.locator(`#pair-0-${invalid.slot_id}`);
      await section.locator('summary').first().click();
      await expect.poll(() => section.locator('.no-decode').count(), { timeout: 10_000 }).toBe(1);
      expect(await section.locator('.no-decode').innerText()).toBe(messages('en').no_decode);
      // The baseline's clip still decodes and shows its first frame.
      await expect.poll(() => section.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).readyState >= 2)), { timeout: 10_000 }).toEqual([true]);
    } finally {
      await close();
    }
  });
});
