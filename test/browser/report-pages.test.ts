/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The report pages in a real browser: Debian's Chromium driven by
 * playwright-core, from file:// with no network. English and Chinese, desktop
 * and phone. A missing Chromium is a failure, not a skip: CI installs it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../packages/fidelity/src/bundle/i18n.js';
import type { Lang } from '../../packages/fidelity/src/bundle/i18n.js';
import { makeReportBundle } from './bundle-source.js';
import type { ReportBundle } from './bundle-source.js';

const CHROMIUM = process.env.FIDELITY_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const VIEWPORTS: Record<'desktop' | 'phone', BrowserContextOptions> = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};
// In the fixtures (fixtures/README.md): c001 carries light noise on B200, c006 has a prompt full of markup.
const FIRST_PAIR = 'pair-0-measurement-r000-c001';
const HOSTILE_PAIR = 'pair-1-measurement-r000-c006';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-browser-test-'));
/** Set FIDELITY_SCREENSHOTS=<dir> to keep the screenshots; otherwise they go with the temp folder. */
const shots = process.env.FIDELITY_SCREENSHOTS ?? path.join(tmp, 'screenshots');
let browser: Browser;
let bundle: ReportBundle;

/**
 * CI must run these (.ci/run installs Debian's chromium, and a missing browser
 * fails there). On a developer machine without it they are reported as
 * skipped, loudly, never as passed.
 */
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true') {
    throw new Error(`Chromium is required for the browser tests and was not found at ${CHROMIUM}. Install Debian's "chromium" package (.ci/run does) or set FIDELITY_CHROMIUM.`);
  }
  console.warn(`SKIPPED: browser tests need Chromium at ${CHROMIUM} (apt-get install -y chromium, or set FIDELITY_CHROMIUM).`);
}

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  mkdirSync(shots, { recursive: true });
  bundle = await makeReportBundle(path.join(tmp, 'bundle'));
  // launch() gives every run a fresh, throw-away user-data-dir.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface Observed {
  requests: string[];
  problems: string[];
}

async function openPage(lang: Lang, view: 'desktop' | 'phone'): Promise<{ page: Page; seen: Observed; close: () => Promise<void> }> {
  const context = await browser.newContext({ ...VIEWPORTS[view], locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  const seen: Observed = { requests: [], problems: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') seen.problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => seen.problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => seen.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(pathToFileURL(bundle.pages[lang]).href, { waitUntil: 'load' });
  return { page, seen, close: () => context.close() };
}

const mp4s = (seen: Observed): string[] => seen.requests.filter((u) => /\.mp4(?:$|[?#])/.test(u));

/** Every URL the page refers to, resolved by the browser itself. */
async function referencedUrls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    document.querySelectorAll('a[href]').forEach((a) => out.push((a as HTMLAnchorElement).href));
    document.querySelectorAll('img[src], video[src], audio[src], source[src]').forEach((e) => out.push((e as HTMLImageElement).src));
    document.querySelectorAll('video[poster]').forEach((e) => out.push((e as HTMLVideoElement).poster));
    return out;
  });
}

async function checkLinks(page: Page, lang: Lang): Promise<void> {
  const urls = await referencedUrls(page);
  expect(urls.length).toBeGreaterThan(10);
  const ids = new Set(await page.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id)));
  const pageUrl = pathToFileURL(bundle.pages[lang]).href;
  for (const raw of urls) {
    const url = new URL(raw);
    if (url.protocol === 'file:') {
      const file = fileURLToPath(new URL(url.pathname, 'file://'));
      expect(file.startsWith(bundle.dir + path.sep), `${raw} stays in the bundle`).toBe(true);
      expect(existsSync(file), `${raw} exists`).toBe(true);
      if (url.hash && `file://${url.pathname}` === pageUrl) expect(ids.has(decodeURIComponent(url.hash.slice(1))), `${raw} anchor`).toBe(true);
    } else {
      expect(url.protocol, raw).toBe('https:');
      expect(bundle.servers, raw).toContain(url.origin);
    }
  }
}

describe.skipIf(!HAVE_CHROMIUM).each([
  ['en', 'desktop'],
  ['zh', 'phone'],
  ['en', 'phone'],
  ['zh', 'desktop'],
] as const)('%s page, %s', (lang, view) => {
  it('opens with no MP4 loaded, no network, no errors, and reads sanely', async () => {
    const { page, seen, close } = await openPage(lang, view);
    try {
      const m = messages(lang);
      expect(mp4s(seen)).toEqual([]);
      for (const u of seen.requests) expect(u.startsWith('file://'), u).toBe(true);

      await expect.poll(() => page.locator('#disclaimer').isVisible()).toBe(true);
      expect(await page.locator('#disclaimer').innerText()).toContain(m.disclaimer_title);
      expect(await page.locator('html').getAttribute('lang')).toBe(m.html_lang);
      expect(await page.locator('h1').innerText()).toBe(m.page_title);

      // The page never scrolls sideways (wide tables scroll inside their own box).
      const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
      expect(widths.doc).toBeLessThanOrEqual(widths.view);

      // Run text shows literally: no element injected, no script anywhere.
      const hostile = page.locator(`#${HOSTILE_PAIR} .prompt`).first();
      const hostilePrompt = bundle.report.comparisons[1]!.pairs.find((p) => p.slot_id === 'measurement-r000-c006')!.prompt;
      expect(hostilePrompt).toContain('<b>');
      expect(await hostile.textContent()).toBe(hostilePrompt);
      expect(await page.locator(`#${HOSTILE_PAIR} .prompt b`).count()).toBe(0);
      expect(await page.evaluate(() => document.scripts.length)).toBe(0);

      await checkLinks(page, lang);
      await page.screenshot({ path: path.join(shots, `${lang}-${view}.png`), fullPage: true });
      expect(mp4s(seen)).toEqual([]);
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('opens a pair and plays its video, loading at most that pair’s two MP4s', async () => {
    const { page, seen, close } = await openPage(lang, view);
    try {
      const section = page.locator(`#${FIRST_PAIR}`);
      await section.locator('summary').click();
      expect(await section.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      const video = section.locator('video').first();
      await expect.poll(() => video.isVisible()).toBe(true);
      // Stills are lazy: on a phone they sit far below the fold until the reader scrolls to them.
      await section.locator('img.still').first().scrollIntoViewIfNeeded();
      await expect.poll(() => section.locator('img.still').first().evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      await section.locator('img.heat').scrollIntoViewIfNeeded();
      await expect.poll(() => section.locator('img.heat').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      await video.scrollIntoViewIfNeeded();

      const played = await video.evaluate(async (v) => {
        const el = v as HTMLVideoElement;
        el.muted = true;
        await el.play();
        const start = performance.now();
        while (el.currentTime === 0 && performance.now() - start < 10_000) await new Promise((r) => setTimeout(r, 50));
        return { currentTime: el.currentTime, readyState: el.readyState, error: el.error?.message ?? null };
      });
      expect(played.error).toBeNull();
      expect(played.readyState).toBeGreaterThanOrEqual(2);
      expect(played.currentTime).toBeGreaterThan(0);

      const loaded = [...new Set(mp4s(seen))];
      expect(loaded.length).toBeGreaterThanOrEqual(1);
      expect(loaded.length).toBeLessThanOrEqual(2);
      const pairSources = await section.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).src));
      for (const u of loaded) expect(pairSources).toContain(u);
      for (const u of seen.requests) expect(u.startsWith('file://'), u).toBe(true);
      await section.screenshot({ path: path.join(shots, `${lang}-${view}-pair-open.png`) });
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
