/**
 * Where the browser tests get their bundle: a real compare() of the
 * committed fixture runs (H200 baseline against B200 and H100), exactly what
 * a user opens. Nothing in the bundle is hand-made. It is the run's shared
 * bundle (test/shared/fixtures.ts): made once per test run, never written to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PAGE_FILE } from '../../packages/fidelity/src/pages/i18n.js';
import { Report } from '../../packages/fidelity/src/schemas/report.js';
import { fixtureBundle } from '../shared/fixtures.js';

export interface ReportBundle {
  /** The bundle folder. */
  dir: string;
  report: Report;
  /** Absolute paths of the English and Chinese pages. */
  pages: { en: string; zh: string };
  /** Origins the pages may link to (the runs' servers); never fetched by the tests. */
  servers: string[];
}

export async function makeReportBundle(): Promise<ReportBundle> {
  const { dir } = await fixtureBundle(['b200', 'h100']);
  const report = Report.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));
  return {
    dir,
    report,
    pages: { en: path.join(dir, PAGE_FILE.en), zh: path.join(dir, PAGE_FILE.zh) },
    servers: [...new Set(report.runs.flatMap((r) => (r.server_url === null ? [] : [new URL(r.server_url).origin])))],
  };
}
