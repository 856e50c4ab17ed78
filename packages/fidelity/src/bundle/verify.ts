/**
 * verify-bundle: a bundle is intact when every file matches SHA256SUMS (none
 * missing, none extra, none changed), every link in every page resolves to a
 * sealed file or to the runs' declared server over https, and every
 * bundle-relative path in report.json is sealed.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Problem } from '../errors.js';
import { sha256File } from '../hash.js';
import { Report } from '../schemas/report.js';
import { walk } from './files.js';
import { allowedOrigins, judgeExternal, judgeLink } from './links.js';
import { scanCss, scanHtml } from './scan.js';
import { parseSeal, SEAL_FILE } from './seal.js';

/** What {@link verifyBundle} found: files re-hashed, links resolved, and every problem (empty when `ok`). */
export interface BundleCheck {
  ok: boolean;
  /** Files re-hashed against the seal. */
  files: number;
  /** Links and report paths resolved. */
  links: number;
  errors: Problem[];
}

const PAGE = /\.(html?|xhtml|svg)$/i;
const CSS = /\.css$/i;
const SOURCE_FILES = ['ci.json', 'plan.json', 'run.json', 'original-SHA256SUMS'];

/** Every bundle-relative path report.json names, with where it was found. */
function reportPaths(report: Report): { where: string; path: string; folder?: boolean }[] {
  const out: { where: string; path: string; folder?: boolean }[] = [];
  report.runs.forEach((run, r) => {
    out.push({ where: `runs[${r}].sources_dir`, path: run.sources_dir, folder: true });
    if (typeof run.power_audit === 'string') out.push({ where: `runs[${r}].power_audit`, path: run.power_audit });
  });
  report.comparisons.forEach((cmp, c) => {
    const files = (cmp as { files?: Record<string, string> }).files ?? {};
    for (const [k, v] of Object.entries(files)) out.push({ where: `comparisons[${c}].files.${k}`, path: v });
    cmp.pairs.forEach((pair, p) => {
      const at = `comparisons[${c}].pairs[${p}]`;
      if (pair.baseline_media !== null) out.push({ where: `${at}.baseline_media`, path: pair.baseline_media });
      if (pair.candidate_media !== null) out.push({ where: `${at}.candidate_media`, path: pair.candidate_media });
      for (const [k, v] of Object.entries(pair.files)) out.push({ where: `${at}.files.${k}`, path: v });
    });
  });
  return out;
}

/**
 * Re-checks a bundle written by {@link compare}, anywhere: every file against its SHA256SUMS line
 * (nothing missing, extra or changed), report.json against its schema, and every link in the pages
 * and path in report.json resolving to a sealed file (links leave the bundle only for the runs' CI
 * server). Problems are returned, not thrown: `BUNDLE_NOT_FOUND`, `BUNDLE_SEAL_MISSING`,
 * `BUNDLE_SEAL_MALFORMED`, `BUNDLE_FILE_MISSING`, `BUNDLE_FILE_EXTRA`, `BUNDLE_FILE_CHANGED`,
 * `BUNDLE_REPORT_MISSING`, `BUNDLE_REPORT_INVALID`, `BUNDLE_INDEX_MISSING`, `BUNDLE_LINK_BROKEN`,
 * `BUNDLE_LINK_EXTERNAL`.
 *
 * @example
 * ```ts
 * const check = await verifyBundle('bundle');
 * if (!check.ok) for (const e of check.errors) console.error(e.code, e.message);
 * ```
 */
export async function verifyBundle(dir: string): Promise<BundleCheck> {
  const errors: Problem[] = [];
  let links = 0;
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    return { ok: false, files: 0, links: 0, errors: [{ code: 'BUNDLE_NOT_FOUND', message: `${dir} is not a folder` }] };
  }

  let sealText: string;
  try {
    sealText = await readFile(path.join(dir, SEAL_FILE), 'utf8');
  } catch {
    return { ok: false, files: 0, links: 0, errors: [{ code: 'BUNDLE_SEAL_MISSING', message: `${SEAL_FILE} is missing: nothing can be verified`, where: { file: SEAL_FILE } }] };
  }
  const { entries, problems } = parseSeal(sealText);
  errors.push(...problems);
  const sealed = new Map(entries.map((e) => [e.path, e.sha256]));

  const present = new Set<string>();
  for (const entry of await walk(dir)) {
    if (entry.kind === 'directory' || entry.path === SEAL_FILE) continue;
    if (entry.kind === 'other') {
      errors.push({ code: 'BUNDLE_FILE_EXTRA', message: `${entry.path} is not a plain file (a link or device has no place in a bundle)`, where: { file: entry.path } });
      continue;
    }
    present.add(entry.path);
    if (!sealed.has(entry.path)) errors.push({ code: 'BUNDLE_FILE_EXTRA', message: `${entry.path} is not listed in ${SEAL_FILE}`, where: { file: entry.path } });
  }
  let files = 0;
  for (const e of entries) {
    if (!present.has(e.path)) {
      errors.push({ code: 'BUNDLE_FILE_MISSING', message: `${e.path} is listed in ${SEAL_FILE} but missing`, where: { file: e.path } });
      continue;
    }
    const actual = await sha256File(path.join(dir, e.path));
    files++;
    if (actual !== e.sha256) errors.push({ code: 'BUNDLE_FILE_CHANGED', message: `${e.path} changed: sealed ${e.sha256}, now ${actual}`, where: { file: e.path } });
  }
  const resolves = (p: string): boolean => sealed.has(p) && present.has(p);

  // report.json: its servers decide which outside links the pages may carry.
  let report: Report | null = null;
  if (!resolves('report.json')) {
    errors.push({ code: 'BUNDLE_REPORT_MISSING', message: 'report.json is missing or not sealed', where: { file: 'report.json' } });
  } else {
    try {
      const parsed = Report.safeParse(JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8')));
      if (parsed.success) report = parsed.data;
      else {
        const issue = parsed.error.issues[0];
        errors.push({ code: 'BUNDLE_REPORT_INVALID', message: `report.json does not match schema_version 1: ${issue?.path.join('.')}: ${issue?.message}`, where: { file: 'report.json' } });
      }
    } catch (error) {
      errors.push({ code: 'BUNDLE_REPORT_INVALID', message: `report.json is not JSON: ${(error as Error).message}`, where: { file: 'report.json' } });
    }
  }
  const origins = allowedOrigins(report?.runs.map((r) => r.server_url) ?? []);

  if (report) {
    for (const ref of reportPaths(report)) {
      const where = { file: 'report.json', path: ref.where };
      const verdict = judgeLink(ref.path, 'report.json', new Set());
      links++;
      if (verdict.kind !== 'file' || verdict.path !== ref.path) {
        errors.push({ code: 'BUNDLE_LINK_BROKEN', message: `report.json ${ref.where} = ${JSON.stringify(ref.path)} is not a plain bundle-relative path`, where });
        continue;
      }
      const targets = ref.folder ? SOURCE_FILES.map((f) => `${ref.path}/${f}`) : [ref.path];
      for (const t of targets) {
        if (!resolves(t)) errors.push({ code: 'BUNDLE_LINK_BROKEN', message: `report.json ${ref.where} names ${t}, which is not a sealed file of the bundle`, where });
      }
    }
    report.runs.forEach((run, r) => {
      for (const key of ['run', 'artifact'] as const) {
        links++;
        const verdict = judgeExternal(run.links[key], origins);
        if (verdict.kind === 'refused' || verdict.kind === 'broken') {
          errors.push({ code: 'BUNDLE_LINK_EXTERNAL', message: `report.json runs[${r}].links.${key}: ${verdict.why}`, where: { file: 'report.json', path: `runs[${r}].links.${key}` } });
        }
      }
    });
  }

  if (!resolves('index.html')) errors.push({ code: 'BUNDLE_INDEX_MISSING', message: 'index.html is missing or not sealed', where: { file: 'index.html' } });

  for (const page of entries.map((e) => e.path).filter((p) => present.has(p) && (PAGE.test(p) || CSS.test(p)))) {
    const text = await readFile(path.join(dir, page), 'utf8');
    const found = CSS.test(page) ? scanCss(text) : scanHtml(text);
    for (const link of found) {
      const verdict = judgeLink(link.value, page, origins);
      if (verdict.kind === 'fragment') continue;
      links++;
      const where = { file: page, line: link.line };
      const shown = link.value.length > 120 ? `${link.value.slice(0, 117)}...` : link.value;
      if (verdict.kind === 'broken') errors.push({ code: 'BUNDLE_LINK_BROKEN', message: `${page}: ${link.attr}="${shown}": ${verdict.why}`, where });
      else if (verdict.kind === 'refused') errors.push({ code: 'BUNDLE_LINK_EXTERNAL', message: `${page}: ${link.attr}="${shown}": ${verdict.why}`, where });
      else if (verdict.kind === 'file' && !resolves(verdict.path)) {
        errors.push({ code: 'BUNDLE_LINK_BROKEN', message: `${page}: ${link.attr}="${shown}" points at ${verdict.path}, which is not a sealed file of the bundle`, where });
      }
    }
  }

  return { ok: errors.length === 0, files, links, errors };
}
