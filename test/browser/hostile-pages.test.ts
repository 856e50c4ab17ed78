/// <reference lib="dom" />
/**
 * The vectors verify-bundle refuses are real: Chromium, opening a resealed
 * page from file://, follows each one out to the network, and verify-bundle
 * refuses that very bundle. The untouched page makes no outside request.
 * Nothing leaves the machine: every outside request is answered here by
 * playwright's router and only recorded.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../packages/fidelity/src/bundle-check/verify.js';
import { makeRealBundle } from '../../packages/fidelity/test/bundle-check/make-bundle.js';

const CHROMIUM = process.env.FIDELITY_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI === 'true') throw new Error(`Chromium is required for the browser tests and was not found at ${CHROMIUM}.`);
  console.warn(`SKIPPED: browser tests need Chromium at ${CHROMIUM} (apt-get install -y chromium, or set FIDELITY_CHROMIUM).`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-hostile-pages-'));
let browser: Browser;
let n = 0;
beforeAll(async () => {
  if (HAVE_CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const EVIL = 'http://evil.example';
const CSP_META = /<meta http-equiv="Content-Security-Policy" content="[^"]*">\n?/i;
const inBody = (markup: string) => (html: string) => html.replace('</main>', `${markup}</main>`);
const withoutCsp = (html: string) => html.replace(CSP_META, '');

/** Opens index.html of a bundle and returns every request that left file://. */
async function outsideRequests(dir: string): Promise<string[]> {
  const context = await browser.newContext();
  const seen: string[] = [];
  await context.route(/^(?!file:)/, (route) => {
    seen.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/plain', body: '' });
  });
  const page = await context.newPage();
  try {
    await page.goto(pathToFileURL(path.join(dir, 'index.html')).href, { waitUntil: 'load' });
    // A refresh, an iframe and a fetch each need a moment after load.
    await page.waitForTimeout(1500);
  } finally {
    await context.close();
  }
  return seen;
}

function bundle(edit?: (html: string) => string): string {
  const dir = path.join(tmp, `b${n++}`);
  makeRealBundle(dir, edit);
  return dir;
}

describe.skipIf(!HAVE_CHROMIUM)('Chromium follows what verify-bundle refuses', () => {
  it('the real page requests nothing outside the bundle', async () => {
    const dir = bundle();
    expect((await verifyBundle(dir)).errors).toEqual([]);
    expect(await outsideRequests(dir)).toEqual([]);
  });

  const vectors: [string, (html: string) => string, string][] = [
    ['a meta refresh, even under the policy', inBody(`<meta http-equiv="refresh" content="0;url=${EVIL}/refresh">`), 'BUNDLE_PAGE_REFRESH'],
    ['an image after <!-->', (h) => inBody(`<!--><img src=${EVIL}/comment.png>`)(withoutCsp(h)), 'BUNDLE_LINK_EXTERNAL'],
    ['an image inside an SVG <style>', (h) => inBody(`<svg><style><img src=${EVIL}/svg-style.png></style></svg>`)(withoutCsp(h)), 'BUNDLE_LINK_EXTERNAL'],
    ['an iframe srcdoc', (h) => inBody(`<iframe srcdoc="&lt;img src=${EVIL}/srcdoc.png&gt;"></iframe>`)(withoutCsp(h)), 'BUNDLE_PAGE_SRCDOC'],
    ['CSS image-set()', (h) => inBody(`<div style="width:10px;height:10px;background-image:image-set('${EVIL}/image-set.png' 1x)"></div>`)(withoutCsp(h)), 'BUNDLE_LINK_EXTERNAL'],
    ['no policy and a script that fetches', (h) => inBody(`<script>fetch('${EVIL}/fetch')</script>`)(withoutCsp(h)), 'BUNDLE_PAGE_SCRIPT'],
  ];
  it.each(vectors)('%s', async (_name, edit, code) => {
    const dir = bundle(edit);
    const requests = await outsideRequests(dir);
    expect(requests.some((u) => u.startsWith(`${EVIL}/`)), JSON.stringify(requests)).toBe(true);
    expect((await verifyBundle(dir)).errors.map((e) => e.code)).toContain(code);
  });
});
