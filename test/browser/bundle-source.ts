/**
 * Where the browser tests get their bundle: a real compare() of the
 * committed fixture runs (H200 baseline against B200 and H100), exactly what
 * a user opens. Nothing in the bundle is hand-made.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare } from '../../packages/fidelity/src/compare.js';
import { PAGE_FILE } from '../../packages/fidelity/src/pages/i18n.js';
import type { Report } from '../../packages/fidelity/src/schemas/report.js';

const RUNS = fileURLToPath(new URL('../../fixtures/runs/', import.meta.url));

export interface ReportBundle {
  /** The bundle folder. */
  dir: string;
  report: Report;
  /** Absolute paths of the English and Chinese pages. */
  pages: { en: string; zh: string };
  /** Origins the pages may link to (the runs' servers); never fetched by the tests. */
  servers: string[];
}

export async function makeReportBundle(dir: string): Promise<ReportBundle> {
  const result = await compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200'), path.join(RUNS, 'h100')], { out: dir });
  const report = result.report;
  return {
    dir,
    report,
    pages: { en: path.join(dir, PAGE_FILE.en), zh: path.join(dir, PAGE_FILE.zh) },
    servers: [...new Set(report.runs.flatMap((r) => (r.server_url === null ? [] : [new URL(r.server_url).origin])))],
  };
}
