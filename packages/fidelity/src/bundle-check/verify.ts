/**
 * verify-bundle: a bundle is intact when every file matches SHA256SUMS (none
 * missing, none extra, none changed), every page is one a browser opens
 * without running, loading or being sent anywhere unvetted (scan.ts), every
 * link in every page resolves to a sealed file or, where a reader clicks it,
 * to the runs' declared server over https, every bundle-relative path in
 * report.json is sealed, and the bundle holds only the files compare writes,
 * each of the kind its name says (file-kinds.ts): a sealed page of someone's
 * own, a PNG named .webp or a text named .flac is refused, whatever its seal.
 *
 * The root cause comes first and alone. A file that fails the seal (changed
 * or missing) is reported by that one problem: its content is not what was
 * sealed, so nothing read from it is reported (a changed page is not
 * scanned, a changed report.json is not parsed). Links resolve against
 * SHA256SUMS, so a link to a listed file that is missing or changed is not
 * reported again. When report.json is missing, changed or invalid, the runs'
 * servers are unknown: an https link a reader clicks is then not judged
 * (the report.json problem already fails the bundle); every other page rule
 * still applies.
 */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Problem } from '../errors.js';
import { Report } from '../schemas/report.js';
import { bundleFileKind, fileKindProblem, pairFilesProblem } from '../bundle/file-kinds.js';
import { allowedBases, allowedOrigins, judgeExternal, judgeLink } from './links.js';
import { buildRunLinks, runLinkIdsProblem, type RunLinkIds } from '../schemas/ci-links.js';
import type { FoundLink } from './scan.js';
import { checkBundleSeal } from './seal-check.js';

/** What {@link verifyBundle} found: files re-hashed, links resolved, and every problem (empty when `ok`). */
export interface BundleCheck {
  ok: boolean;
  /** Files re-hashed against the seal. */
  files: number;
  /** Links and report paths resolved. */
  links: number;
  errors: Problem[];
}

const PAGE = /\.html?$/i;
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
  // The page scanner (parse5) loads when a bundle is checked, not with the library (docs/performance.md, "Start-up").
  const { ACTIVE_DOCUMENT, scanCss, scanPage } = await import('./scan.js');
  const seal = await checkBundleSeal(dir);
  if (seal.stopped) return { ok: false, files: 0, links: 0, errors: seal.problems };
  const errors: Problem[] = [...seal.problems];
  let links = 0;
  const { entries, sealed, present, failed, files } = seal;
  const resolves = (p: string): boolean => sealed.has(p);
  const intact = (p: string): boolean => sealed.has(p) && present.has(p) && !failed.has(p);

  // Only the files compare writes, each of its kind (an active document is BUNDLE_PAGE_TYPE below instead).
  for (const file of entries.map((e) => e.path).filter(intact)) {
    if (ACTIVE_DOCUMENT.test(file)) continue;
    const kind = bundleFileKind(file);
    if (kind === null) {
      errors.push({ code: 'BUNDLE_FILE_KIND', message: `${file} is not a file compare writes (docs/report.md, "The bundle"); a bundle holds nothing else`, where: { file } });
      continue;
    }
    const why = fileKindProblem(kind, await readHead(path.join(dir, file), kind === 'mp4' ? 8 : Infinity));
    if (why) errors.push({ code: 'BUNDLE_FILE_KIND', message: `${file} ${why}`, where: { file } });
  }

  // report.json: its servers decide which outside links the pages may carry.
  let report: Report | null = null;
  if (!sealed.has('report.json')) {
    errors.push({ code: 'BUNDLE_REPORT_MISSING', message: 'report.json is missing or not sealed', where: { file: 'report.json' } });
  } else if (intact('report.json')) {
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
  // null: unknown, because report.json could not be trusted.
  const servers = report ? report.runs.flatMap((r) => (r.server_url === null ? [] : [r.server_url])) : [];
  const origins = report ? allowedOrigins(servers) : null;
  const bases = allowedBases(servers);

  if (report) {
    report.comparisons.forEach((cmp, c) => {
      cmp.pairs.forEach((pair, p) => {
        const why = pairFilesProblem(pair.files, `pairs/${cmp.candidate_run_id}-${cmp.candidate_run_attempt}/${pair.slot_id}`);
        if (why) errors.push({ code: 'BUNDLE_FILE_KIND', message: `report.json comparisons[${c}].pairs[${p}].files ${why}`, where: { file: 'report.json', path: `comparisons[${c}].pairs[${p}].files` } });
      });
    });
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
      // The links are rebuilt from the run's ids by the rules verify holds ci.json to (schemas/ci-links.ts): no other link passes.
      const provider = run.provider ?? 'github';
      let expected: Partial<Record<'run' | 'artifact' | 'pipeline', string>> | null = null;
      if (provider !== 'other') {
        const ids: RunLinkIds = {
          provider,
          server_url: run.server_url ?? '',
          repository: run.repository ?? '',
          run_id: run.run_id,
          run_attempt: run.run_attempt,
          artifact_id: run.artifact.id,
          ...(run.gitlab ? { pipeline_id: run.gitlab.pipeline_id } : {}),
        };
        const why = runLinkIdsProblem(ids);
        if (why !== null) errors.push({ code: 'BUNDLE_LINK_EXTERNAL', message: `report.json runs[${r}]: no link may be built: ${why}`, where: { file: 'report.json', path: `runs[${r}]` } });
        else expected = buildRunLinks(ids);
      }
      for (const key of ['run', 'artifact', 'pipeline'] as const) {
        const link = run.links[key];
        // A provider without pages (`other`) has no links: nothing to resolve, and nothing may claim one.
        if (link === null || link === undefined) continue;
        links++;
        if (run.provider === 'other') {
          errors.push({ code: 'BUNDLE_LINK_EXTERNAL', message: `report.json runs[${r}].links.${key}: a run of provider "other" has no CI pages, so no link`, where: { file: 'report.json', path: `runs[${r}].links.${key}` } });
          continue;
        }
        const verdict = judgeExternal(link, origins!, bases);
        if (verdict.kind === 'refused' || verdict.kind === 'broken') {
          errors.push({ code: 'BUNDLE_LINK_EXTERNAL', message: `report.json runs[${r}].links.${key}: ${verdict.why}`, where: { file: 'report.json', path: `runs[${r}].links.${key}` } });
        } else if (expected && expected[key] !== link) {
          errors.push({
            code: 'BUNDLE_LINK_EXTERNAL',
            message: `report.json runs[${r}].links.${key} is not the link the run's ids build (${expected[key] ?? 'none'})`,
            where: { file: 'report.json', path: `runs[${r}].links.${key}` },
          });
        }
      }
    });
  }

  if (!sealed.has('index.html')) {
    errors.push({ code: 'BUNDLE_INDEX_MISSING', message: 'index.html is missing or not sealed', where: { file: 'index.html' } });
  }

  for (const file of entries.map((e) => e.path).filter(intact)) {
    if (ACTIVE_DOCUMENT.test(file)) {
      errors.push({ code: 'BUNDLE_PAGE_TYPE', message: `${file}: a browser opens this type as a document that can run script; a bundle's only pages are .html`, where: { file } });
      continue;
    }
    const isPage = PAGE.test(file);
    if (!isPage && !CSS.test(file)) continue;
    const bytes = await readFile(path.join(dir, file));
    // Judge exactly the bytes the seal vouches for, even if the file changed since it was hashed.
    if (createHash('sha256').update(bytes).digest('hex') !== sealed.get(file)) {
      errors.push({ code: 'BUNDLE_FILE_CHANGED', message: `${file} changed while it was verified`, where: { file } });
      continue;
    }
    let found: FoundLink[];
    if (isPage) {
      const scan = scanPage(bytes, file);
      errors.push(...scan.problems);
      found = scan.links;
    } else found = scanCss(bytes.toString('utf8'));
    for (const link of found) {
      const problem = judgeFound(link, file, origins, resolves, bases);
      if (problem === 'skip') continue;
      links++;
      if (problem) errors.push(problem);
    }
  }

  return { ok: errors.length === 0, files, links, errors };
}

/** The first `max` bytes of a file (all of it for Infinity). */
async function readHead(file: string, max: number): Promise<Buffer> {
  if (max === Infinity) return readFile(file);
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * One link of a page: null when it is fine, 'skip' when there is nothing to
 * judge (a fragment, or an https link to click while the servers are unknown).
 */
function judgeFound(link: FoundLink, page: string, origins: ReadonlySet<string> | null, resolves: (p: string) => boolean, bases: readonly string[]): Problem | null | 'skip' {
  const verdict = judgeLink(link.value, page, origins ?? new Set(), origins === null ? undefined : bases);
  if (verdict.kind === 'fragment') return 'skip';
  const where = { file: page, line: link.line };
  const shown = link.value.length > 120 ? `${link.value.slice(0, 117)}...` : link.value;
  const said = `${page}: ${link.attr}="${shown}"`;
  const https = /^\s*https:/i.test(link.value);
  if (link.use === 'load' && (verdict.kind === 'external' || (verdict.kind === 'refused' && https))) {
    return { code: 'BUNDLE_LINK_EXTERNAL', message: `${said}: the page would load it from the network; only a link the reader clicks may leave the bundle`, where };
  }
  if (origins === null && https && verdict.kind === 'refused') return 'skip';
  if (verdict.kind === 'broken') return link.use === 'text' ? null : { code: 'BUNDLE_LINK_BROKEN', message: `${said}: ${verdict.why}`, where };
  if (verdict.kind === 'refused') return { code: 'BUNDLE_LINK_EXTERNAL', message: `${said}: ${verdict.why}`, where };
  if (verdict.kind === 'file' && link.use !== 'text' && !resolves(verdict.path)) {
    return { code: 'BUNDLE_LINK_BROKEN', message: `${said} points at ${verdict.path}, which is not a sealed file of the bundle`, where };
  }
  return null;
}
