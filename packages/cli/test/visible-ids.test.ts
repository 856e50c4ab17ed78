/**
 * The terminal shows an id's invisible characters as escapes, as the pages, the job summary and
 * JUnit do (visibleId): a failed pair whose case id holds a zero-width space and a no-break space
 * (which the terminal's control escaping alone leaves as it is) is listed with `\u200b` and `\u00a0`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CompareResult, Report } from 'media-fidelity';
import { humanSummary } from '../src/commands/compare.js';

const REPORT = fileURLToPath(new URL('../../../fixtures/reference/report.json', import.meta.url));

describe('ids in the terminal', () => {
  it('show a zero-width space and a no-break space escaped', () => {
    const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
    const pair = report.comparisons.flatMap((c) => c.pairs).find((p) => p.status === 'failed' || p.status === 'invalid')!;
    pair.case_id = `ab\u200bc\u00a0d`;
    const text = humanSummary({ report } as unknown as CompareResult);
    expect(text).toContain(' ab\\u200bc\\u00a0d: ');
    expect(text).not.toMatch(/[\u200b\u00a0]/);
  });
});
