/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The report pages in a real browser: Debian's Chromium driven by
 * playwright-core, from file:// with no network. English and Chinese, desktop
 * and phone. A missing Chromium is a failure, not a skip: CI installs it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_DIFF_SECONDS } from '../../packages/fidelity/src/bundle/assets-keys.js';
import { messages } from '../../packages/fidelity/src/pages/i18n.js';
import { CJK_FAMILIES } from '../../packages/fidelity/src/pages/style.js';
import type { Lang } from '../../packages/fidelity/src/pages/i18n.js';
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
  bundle = await makeReportBundle();
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

/**
 * Opens a pair's section as a reader does: a passed pair sits in its comparison's closed group of
 * passed pairs, so that line is opened first.
 */
async function openPair(section: Locator): Promise<void> {
  const opened = await section.evaluate((d) => {
    const group = d.parentElement?.closest('details.pair-group') as HTMLDetailsElement | null;
    return group === null || group.open;
  });
  if (!opened) await section.locator('xpath=ancestor::details[contains(@class,"pair-group")][1]/summary').click();
  await section.locator('summary').first().click();
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
      // Only the page script and its JSON data block.
      expect(await page.evaluate(() => [...document.scripts].map((x) => x.type))).toEqual(['application/json', '']);
      expect(await page.evaluate(() => document.documentElement.classList.contains('js'))).toBe(true);

      // The verdict comes first: every candidate's outcome counts inside the first screen, no sideways scrolling.
      const vp = page.viewportSize()!;
      const counts = await page.locator('.card .counts').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
      expect(counts.length).toBe(bundle.report.comparisons.length);
      for (const r of counts) {
        expect(r.bottom).toBeLessThanOrEqual(vp.height);
        expect(r.right).toBeLessThanOrEqual(vp.width);
      }
      const firstCard = await page.locator('.card').first().innerText();
      const c0 = bundle.report.comparisons[0]!.summary;
      for (const n of [c0.passed, c0.failed, c0.invalid]) expect(firstCard).toContain(String(n));

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
      await openPair(section);
      expect(await section.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      const video = section.locator('video').first();
      await expect.poll(() => video.isVisible()).toBe(true);
      // Stills are lazy: on a phone they sit far below the fold until the reader scrolls to them.
      await section.locator('img.still').first().scrollIntoViewIfNeeded();
      await expect.poll(() => section.locator('img.still').first().evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      await section.locator('img.heat').last().scrollIntoViewIfNeeded();
      await expect.poll(() => section.locator('img.heat').last().evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
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

  it('links each failed or invalid pair from the top, and the link opens it', async () => {
    const { page, seen, close } = await openPage(lang, view);
    try {
      // Every failed or invalid pair is linked from its case's line, never cut.
      const links = page.locator('ul.problems a[href^="#pair-"]');
      const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const bad = bundle.report.comparisons.flatMap((c, ci) => c.pairs.filter((p) => p.status !== 'passed').map((p) => `#pair-${ci}-${p.slot_id}`));
      for (const b of bad) expect(hrefs).toContain(b);
      // A case opens to its repetitions, and a repetition's link opens its pair.
      const line = page.locator('details.case-line').nth(1);
      await line.locator('summary').click();
      const link = line.locator('a[href^="#pair-"]').first();
      const href = (await link.getAttribute('href'))!;
      expect(await page.locator(href).evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await link.click();
      await expect.poll(() => page.locator(href).evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      await expect.poll(() => page.locator(`${href} > summary`).isVisible()).toBe(true);
      // The overview's filters hide the other statuses, without any script.
      await page.locator('label[for="flt-invalid"]').click();
      const shown = await page.locator('#overview tbody tr').evaluateAll((rows) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => r.className));
      expect(shown.length).toBe(bundle.report.comparisons.flatMap((c) => c.pairs).filter((p) => p.status === 'invalid').length);
      expect(new Set(shown)).toEqual(new Set(['st-invalid']));
      expect(mp4s(seen)).toEqual([]);
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('starts the control at the poster\'s frame, plays from there, and stacks the videos on a phone', async () => {
    // c003 on B200 fails with its worst frame well inside the clip, so "frame 0" and the poster's frame differ.
    const pair = bundle.report.comparisons[0]!.pairs.find((p) => p.slot_id === 'measurement-r000-c003')!;
    const worst = pair.video!.ssim!.worst_frame;
    const last = pair.video!.frames - 1;
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(last);
    const { page, seen, close } = await openPage(lang, view);
    try {
      const m = messages(lang);
      const section = page.locator(`#pair-0-${pair.slot_id}`);
      await openPair(section);
      const ab = section.locator('.ab');
      const bar = ab.locator('.ab-bar');
      await expect.poll(() => bar.isVisible()).toBe(true);
      const posFrame = (f: number) => m.frame_pos.replace('{frame}', String(f)).replace('{last}', String(last));
      // Before play: both posters are the worst frame, and so is the control.
      const posters = await ab.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).getAttribute('poster')));
      expect(posters).toEqual([pair.files.baseline_worst_webp, pair.files.candidate_worst_webp]);
      expect(await ab.locator('.ab-seek').inputValue()).toBe(String(worst));
      expect(await ab.locator('.ab-pos').innerText()).toBe(posFrame(worst));
      // A frame step before play moves from there, and loads nothing.
      await bar.locator('[data-act="fwd"]').click();
      expect(await ab.locator('.ab-seek').inputValue()).toBe(String(worst + 1));
      expect(await ab.locator('.ab-pos').innerText()).toBe(posFrame(worst + 1));
      expect(mp4s(seen)).toEqual([]);

      // Side by side on a desktop; stacked (one column, the candidate below the baseline) under 700 px.
      const boxes = await ab.locator('video').evaluateAll((vs) => vs.map((v) => v.getBoundingClientRect().toJSON() as DOMRect));
      const [va, vb] = [boxes[0]!, boxes[1]!];
      if (view === 'phone') {
        expect(vb.top).toBeGreaterThanOrEqual(va.bottom);
        expect(Math.abs(va.left - vb.left)).toBeLessThan(1);
      } else {
        expect(Math.abs(va.top - vb.top)).toBeLessThan(1);
        expect(vb.left).toBeGreaterThanOrEqual(va.right);
      }

      // Play starts at the frame the control shows, not at frame 0: the earliest time either video reports is there.
      await ab.evaluate((el) => {
        const w = window as unknown as { earliest: number[] };
        w.earliest = [Infinity, Infinity];
        el.querySelectorAll('video').forEach((v, i) => {
          const note = () => {
            if (!v.paused && v.readyState >= 2) w.earliest[i] = Math.min(w.earliest[i]!, v.currentTime);
          };
          v.addEventListener('timeupdate', note);
          v.addEventListener('playing', note);
        });
      });
      await bar.locator('[data-act="play"]').click();
      await expect.poll(() => page.evaluate(() => (window as unknown as { earliest: number[] }).earliest[0]!), { timeout: 10_000 }).toBeLessThan(Infinity);
      const fps = await ab.evaluate((el) => Number(el.getAttribute('data-frames')) / (el.querySelector('video') as HTMLVideoElement).duration);
      const earliest = await page.evaluate(() => (window as unknown as { earliest: number[] }).earliest[0]!);
      expect(Math.floor(earliest * fps + 1e-6)).toBeGreaterThanOrEqual(worst + 1);
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('drives both videos from one control: play, pause, seek, frame step, flicker and wipe', async () => {
    const { page, seen, close } = await openPage(lang, view);
    try {
      const section = page.locator(`#${FIRST_PAIR}`);
      await openPair(section);
      const ab = section.locator('.ab');
      const bar = ab.locator('.ab-bar');
      await expect.poll(() => bar.isVisible()).toBe(true);
      const times = () => ab.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).currentTime));
      const fps = async () => ab.evaluate((el) => Number(el.getAttribute('data-frames')) / (el.querySelector('video') as HTMLVideoElement).duration);

      await bar.locator('[data-act="play"]').click();
      await expect.poll(async () => (await times())[0]!, { timeout: 10_000 }).toBeGreaterThan(0);
      await bar.locator('[data-act="play"]').click();
      const f = await fps();
      expect(f).toBeGreaterThan(1);
      let [a, b] = await times();
      expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1 / f);
      expect(await ab.locator('video').evaluateAll((vs) => vs.every((v) => (v as HTMLVideoElement).paused))).toBe(true);

      // Seek with the slider, then one frame forward with the keyboard.
      await ab.locator('.ab-seek').evaluate((el) => {
        (el as HTMLInputElement).value = '5';
        el.dispatchEvent(new Event('input', { bubbles: true }));
      });
      [a, b] = await times();
      expect(Math.floor(a! * f)).toBe(5);
      expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1 / f);
      await page.keyboard.press('ArrowRight');
      [a, b] = await times();
      expect(Math.floor(a! * f)).toBe(6);
      expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1 / f);

      // Flicker: one picture at a time on the same frame; F switches sides.
      const visible = () => ab.locator('figure').evaluateAll((fs) => fs.map((x) => getComputedStyle(x).visibility));
      await bar.locator('[data-mode-btn="flicker"]').click();
      expect(await ab.getAttribute('data-mode')).toBe('flicker');
      expect(await visible()).toEqual(['visible', 'hidden']);
      await page.keyboard.press('f');
      expect(await visible()).toEqual(['hidden', 'visible']);
      [a, b] = await times();
      expect(Math.floor(b! * f)).toBe(6);

      // Wipe: both pictures stacked, the candidate cut at the slider.
      await bar.locator('[data-mode-btn="wipe"]').click();
      expect(await visible()).toEqual(['visible', 'visible']);
      await ab.locator('.ab-wipe').evaluate((el) => {
        (el as HTMLInputElement).value = '30';
        el.dispatchEvent(new Event('input', { bubbles: true }));
      });
      expect(await ab.locator('.ab-b video').evaluate((v) => getComputedStyle(v).clipPath)).toBe('inset(0px 0px 0px 30%)');
      const boxes = await ab.locator('video').evaluateAll((vs) => vs.map((v) => v.getBoundingClientRect().toJSON() as DOMRect));
      expect(Math.abs(boxes[0]!.x - boxes[1]!.x)).toBeLessThan(1);
      expect(Math.abs(boxes[0]!.y - boxes[1]!.y)).toBeLessThan(1);

      // A click on the chart seeks both videos to that frame.
      const svg = section.locator('.chart svg');
      await svg.scrollIntoViewIfNeeded();
      const box = (await svg.boundingBox())!;
      const x0 = Number(await svg.getAttribute('data-x0'));
      const x1 = Number(await svg.getAttribute('data-x1'));
      const frames = Number(await ab.getAttribute('data-frames'));
      await svg.click({ position: { x: (x0 / 640) * box.width + 1, y: box.height / 2 } });
      [a, b] = await times();
      expect(Math.floor(a! * f)).toBe(0);
      expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1 / f);
      await svg.click({ position: { x: (x1 / 640) * box.width - 1, y: box.height / 2 } });
      [a] = await times();
      expect(Math.floor(a! * f)).toBe(frames - 1);
      await ab.screenshot({ path: path.join(shots, `${lang}-${view}-wipe.png`) });

      const loaded = [...new Set(mp4s(seen))];
      const pairSources = await ab.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).src));
      for (const u of loaded) expect(pairSources).toContain(u);
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('a pair whose video is bit-identical', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`shows its one WebP still, decoded, no difference picture, and says why (${lang})`, async () => {
      const c = bundle.report.comparisons.findIndex((cmp) => cmp.pairs.some((p) => p.status !== 'invalid' && p.video?.identical));
      expect(c).toBeGreaterThanOrEqual(0);
      const pair = bundle.report.comparisons[c]!.pairs.find((p) => p.status !== 'invalid' && p.video?.identical)!;
      expect(pair.files.baseline_worst_webp).toBe(pair.files.candidate_worst_webp);
      const { page, seen, close } = await openPage(lang, 'desktop');
      try {
        const section = page.locator(`#pair-${c}-${pair.slot_id}`);
        await openPair(section);
        const still = section.locator('img.still');
        expect(await still.count()).toBe(1);
        expect(await section.locator('img.heat').count()).toBe(0);
        await still.scrollIntoViewIfNeeded();
        await expect.poll(() => still.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
        expect(await still.getAttribute('src')).toBe(pair.files.baseline_worst_webp);
        const posters = await section.locator('video').evaluateAll((vs) => vs.map((v) => (v as HTMLVideoElement).getAttribute('poster')));
        expect(posters).toEqual([pair.files.baseline_worst_webp, pair.files.baseline_worst_webp]);
        await expect.poll(() => section.getByText(messages(lang).video_identical_no_diff).isVisible()).toBe(true);
        expect(seen.problems).toEqual([]);
      } finally {
        await close();
      }
    });
  }
});

describe.skipIf(!HAVE_CHROMIUM)('identical audio, and the list of failed pairs', () => {
  it('shows identical audio as ∞ in the overview and in the pair\'s own tables, never as unavailable', async () => {
    // c001 on B200: the video differs, every audio sample is equal (SNR null with reason "identical" in report.json).
    const pair = bundle.report.comparisons[0]!.pairs.find((p) => p.slot_id === 'measurement-r000-c001')!;
    expect(pair.audio!.identical).toBe(true);
    expect(pair.audio!.channels.map((c) => c.snr_db)).toEqual(pair.audio!.channels.map(() => null));
    for (const lang of ['en', 'zh'] as const) {
      const m = messages(lang);
      const { page, seen, close } = await openPage(lang, 'desktop');
      try {
        const anchor = `pair-0-${pair.slot_id}`;
        const overviewRow = page.locator('#overview tbody tr', { has: page.locator(`a[href="#${anchor}"]`) });
        const cells = await overviewRow.locator('td').allInnerTexts();
        expect(cells[5]).toBe('∞');
        const section = page.locator(`#${anchor}`);
        await openPair(section);
        const snrRow = section.locator('tr', { has: page.locator(`th:text-is("${m.snr_db}")`) });
        expect(await snrRow.count()).toBe(1);
        const values = (await snrRow.locator('td').allInnerTexts()).map((t) => t.trim());
        expect(values).toEqual(pair.audio!.channels.map(() => '∞'));
        expect(await section.innerText()).not.toContain(m.unavailable);
        // A bit-identical video's pooled PSNR: ∞ in the overview and in the pair, the same symbol.
        const same = bundle.report.comparisons[0]!.pairs.find((p) => p.status === 'passed' && p.video?.identical && p.video.psnr_db === null)!;
        const sameRow = page.locator('#overview tbody tr', { has: page.locator(`a[href="#pair-0-${same.slot_id}"]`) });
        expect((await sameRow.locator('td').allInnerTexts())[4]).toBe('∞');
        const sameSection = page.locator(`#pair-0-${same.slot_id}`);
        await openPair(sameSection);
        const pooled = sameSection.locator('dl.kv dt', { hasText: m.psnr_pooled }).locator('xpath=following-sibling::dd[1]');
        expect(await pooled.innerText()).toBe('∞');
        expect(await sameSection.innerText()).not.toContain(m.unavailable);
        expect(seen.problems).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('names each failed or invalid case by its case id, and each of its repetitions by its slot', async () => {
    const { page, close } = await openPage('en', 'phone');
    try {
      const lines = page.locator('details.case-line');
      const n = await lines.count();
      expect(n).toBeGreaterThan(3);
      for (let i = 0; i < n; i++) {
        const caseId = await lines.nth(i).locator('summary .case').innerText();
        const items = lines.nth(i).locator('a[href^="#pair-"]');
        const pairs = [];
        for (let k = 0; k < (await items.count()); k++) {
          const href = (await items.nth(k).getAttribute('href'))!;
          const [, ci, slot] = /^#pair-(\d+)-(.+)$/.exec(href)!;
          const pair = bundle.report.comparisons[Number(ci)]!.pairs.find((p) => p.slot_id === slot)!;
          expect(pair.case_id).toBe(caseId);
          expect(await items.nth(k).textContent()).toContain(pair.slot_id);
          pairs.push(pair);
        }
        expect(pairs.some((p) => p.status !== 'passed')).toBe(true);
      }
    } finally {
      await close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('a pair whose audio differs', () => {
  it('plays its difference FLAC: the audio element loads it, with the duration of the samples written', async () => {
    const c = bundle.report.comparisons.findIndex((cmp) => cmp.pairs.some((p) => p.audio && !p.audio.identical && p.status !== 'invalid'));
    expect(c).toBeGreaterThanOrEqual(0);
    const pair = bundle.report.comparisons[c]!.pairs.find((p) => p.audio && !p.audio.identical && p.status !== 'invalid')!;
    const file = pair.files.audio_diff_normalized_flac ?? pair.files.audio_diff_flac;
    expect(file).toMatch(/\/audio-diff(-normalized)?\.flac$/);
    const audio = pair.audio!;
    const seconds = Math.min(...audio.channels.map((ch) => ch.samples), audio.sample_rate * AUDIO_DIFF_SECONDS) / audio.sample_rate;
    const { page, seen, close } = await openPage('en', 'desktop');
    try {
      const section = page.locator(`#pair-${c}-${pair.slot_id}`);
      await openPair(section);
      const player = section.locator('audio');
      expect(await player.count()).toBe(1);
      expect(await player.getAttribute('src')).toBe(file);
      await player.scrollIntoViewIfNeeded();
      const loaded = await player.evaluate(async (a) => {
        const el = a as HTMLAudioElement;
        const done = new Promise<string>((resolve) => {
          el.addEventListener('loadedmetadata', () => resolve('loadedmetadata'), { once: true });
          el.addEventListener('error', () => resolve('error'), { once: true });
          setTimeout(() => resolve('timeout'), 10_000);
        });
        el.load();
        const event = await done;
        el.muted = true;
        await el.play();
        const start = performance.now();
        while (el.currentTime === 0 && !el.error && performance.now() - start < 10_000) await new Promise((r) => setTimeout(r, 50));
        return { event, duration: el.duration, currentTime: el.currentTime, error: el.error?.message ?? null };
      });
      expect(loaded.error).toBeNull();
      expect(loaded.event).toBe('loadedmetadata');
      expect(loaded.duration).toBeCloseTo(seconds, 2);
      expect(loaded.currentTime).toBeGreaterThan(0);
      expect(seen.requests.filter((u) => u.endsWith('.flac'))).toContain(pathToFileURL(path.join(bundle.dir, ...file!.split('/'))).href);
      expect(seen.problems).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('with scripts off', () => {
  it('still opens a failing pair from its link (:target) and still filters the overview', async () => {
    const context = await browser.newContext({ ...VIEWPORTS.phone, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(pathToFileURL(bundle.pages.en).href, { waitUntil: 'load' });
      const line = page.locator('details.case-line').first();
      await line.locator('summary').click();
      const link = line.locator('a[href^="#pair-"]').first();
      const href = (await link.getAttribute('href'))!;
      const body = page.locator(`${href} .pair-body`);
      expect(await body.evaluate((e) => e.getBoundingClientRect().height)).toBe(0);
      await link.click();
      await expect.poll(() => body.evaluate((e) => e.getBoundingClientRect().height)).toBeGreaterThan(100);
      // Each video keeps its own controls: the shared bar needs the script and stays hidden.
      expect(await page.locator(`${href} video[controls]`).count()).toBe(2);
      expect(await page.locator(`${href} .ab-bar`).isVisible()).toBe(false);
      await page.locator('label[for="flt-failed"]').click();
      const shown = await page.locator('#overview tbody tr').evaluateAll((rows) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => r.className));
      expect(new Set(shown)).toEqual(new Set(['st-failed']));
    } finally {
      await context.close();
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the Chinese page', () => {
  it('shows no English UI string that the English page uses', async () => {
    const en = messages('en');
    const zh = messages('zh');
    // Every English UI string, cut at its placeholders; pieces short enough to be a metric name or unit are left out.
    const english = (Object.keys(en) as (keyof typeof en)[])
      .filter((k) => en[k] !== zh[k] && k !== 'other_lang_label' && k !== 'html_lang' && k !== 'other_lang_hreflang')
      .flatMap((k) => en[k].split(/\{\w+\}/))
      .map((x) => x.trim())
      .filter((x) => x.length >= 8 && /[a-z]{3}/.test(x));
    expect(english.length).toBeGreaterThan(100);
    const { page, close } = await openPage('zh', 'desktop');
    try {
      // Run data (prompts, names, errors, the report's own disclaimer, the policy file's text) is shown as it is, never translated.
      const text = await page.evaluate(() => {
        document.querySelectorAll('.prompt, .data, details.quote, code, .mono, a[href^="https:"], .meta, script').forEach((e) => e.remove());
        return document.body.innerText;
      });
      const found = english.filter((x) => text.includes(x));
      expect(found).toEqual([]);
    } finally {
      await close();
    }
  });
});

/**
 * The CJK families installed here, as fontconfig names them (.ci/run installs Debian's
 * fonts-wqy-microhei, docs/report-pages.md "Fonts"); empty when fc-list is missing.
 */
function installedCjkFamilies(): string[] {
  try {
    const list = execFileSync('fc-list', [':lang=zh-cn', 'family'], { encoding: 'utf8' });
    return CJK_FAMILIES.filter((f) => list.split(/[\n,]/).some((l) => l.trim() === f));
  } catch {
    return [];
  }
}

describe.skipIf(!HAVE_CHROMIUM)('Chinese text', () => {
  it('is drawn with a CJK family of the font stack, every glyph, on both pages (the 中文 link of the English page too)', async (ctx) => {
    const installed = installedCjkFamilies();
    if (installed.length === 0) {
      if (process.env.CI === 'true') throw new Error('no CJK font of the page font stack is installed: .ci/run installs fonts-wqy-microhei');
      console.warn('SKIPPED: no CJK font of the page font stack is installed (apt-get install -y fonts-wqy-microhei)');
      return ctx.skip();
    }
    for (const [lang, selector] of [['en', 'a.lang'], ['zh', 'h1']] as const) {
      const { page, close } = await openPage(lang, 'desktop');
      try {
        const text = await page.locator(selector).first().innerText();
        expect(text, `${lang} ${selector}`).toMatch(/[\u4e00-\u9fff]/);
        // The fonts Chromium really drew the element's text with, with how many glyphs each.
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('DOM.enable');
        await cdp.send('CSS.enable');
        const { root } = await cdp.send('DOM.getDocument');
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
        const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        const han = [...text].filter((c) => /[\u4e00-\u9fff]/.test(c)).length;
        const cjk = fonts.filter((f) => (installed as string[]).includes(f.familyName));
        expect(cjk.length, `${lang} ${selector}: ${JSON.stringify(fonts)}`).toBeGreaterThan(0);
        expect(cjk.reduce((n, f) => n + f.glyphCount, 0), JSON.stringify(fonts)).toBeGreaterThanOrEqual(han);
      } finally {
        await close();
      }
    }
  });
});
