/**
 * A vitest reporter that records each test file's whole time, for scripts/test-times.mjs: vitest's
 * JSON report spans a file from its first test's start to its last test's end, which leaves out
 * importing the file and its `beforeAll` hooks, where files that build or compare shared data spend
 * most of their time. Written beside the JSON report (`test-times.json` → `test-times.files.json`).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** One file's times in milliseconds, as vitest's module diagnostic gives them. */
export interface FileTimes {
  /** The file, relative to the repository. */
  file: string;
  /** Importing the file and running its suite callbacks. */
  collect: number;
  /** The project's setup files (the serial files' run-wide lock is taken there). */
  setup: number;
  /** Its tests and hooks (`beforeAll` and `afterAll` included). */
  run: number;
}

/** A file beside the JSON report `report`: its name without `.json`, plus `suffix` (scripts/test-times.mjs reads them by the same rule). */
export function besideReport(report: string, suffix: string): string {
  return report.replace(/(\.json)?$/, suffix);
}

/** Where the per-file times go, beside the JSON report `report`. */
export function fileTimesPath(report: string): string {
  return besideReport(report, '.files.json');
}

export default class FileTimesReporter implements Reporter {
  private readonly files: FileTimes[] = [];

  constructor(private readonly report: string) {}

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.files.push({ file: path.relative(process.cwd(), module.moduleId), collect: d.collectDuration, setup: d.setupDuration, run: d.duration });
  }

  onTestRunEnd(): void {
    writeFileSync(fileTimesPath(this.report), `${JSON.stringify({ files: this.files }, null, 1)}\n`);
  }
}
