/**
 * runs[].identity in report.json and on both pages: provider-attested or
 * self-attested, said next to each run, and never as an outside link.
 */
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/pages/page.js';
import { messages } from '../../src/pages/i18n.js';
import { identityReport } from '../../src/comparison/report-model.js';
import { Report, RunIdentity } from '../../src/schemas/report.js';
import { htmlText, SAMPLE_MEDIA, sampleReport } from '../pages/html-fixture.js';

const MEDIA = { ...SAMPLE_MEDIA, audio: null };

const DIGEST = `sha256:${'c'.repeat(64)}`;

const provider: RunIdentity = {
  attested_by: 'provider',
  provider: {
    name: 'github',
    api_url: 'https://api.github.com',
    fetched_at: '2026-11-30T10:00:00.000Z',
    fetched_by: 'fidelity 0.1.0',
    run_html_url: 'https://github.com/example-org/video-serving-bench/actions/runs/30054883436',
    workflow_path: '.github/workflows/h3-serving.yml',
    status: 'completed',
    conclusion: 'success',
    run_updated_at: '2026-11-29T22:01:00Z',
    artifact_digest: DIGEST,
    artifact_created_at: '2026-11-29T21:58:00Z',
    artifact_expires_at: '2027-02-27T21:58:00Z',
  },
};

function report(): Report {
  const r = sampleReport(MEDIA);
  r.runs[0]!.identity = provider;
  r.runs[1]!.identity = { attested_by: 'self', provider: null };
  return Report.parse(r);
}

/** The cells of the "Identity" row of the sites table, one per run. */
function identityRow(html: string, label: string): string[] {
  const row = [...html.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => m[1]!).find((r) => r.includes(`>${label}<`));
  expect(row, `a row labelled ${label}`).toBeDefined();
  return [...row!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]!);
}

describe('runs[].identity', () => {
  it('is in the report schema, and optional (reports written before it still parse)', () => {
    const r = report();
    expect(r.runs.map((run) => run.identity?.attested_by)).toEqual(['provider', 'self']);
    const old = sampleReport(MEDIA);
    for (const run of old.runs) delete run.identity;
    expect(Report.safeParse(old).success).toBe(true);
    const wrong = report() as unknown as { runs: { identity: { attested_by: string } }[] };
    wrong.runs[0]!.identity.attested_by = 'trust-me';
    expect(Report.safeParse(wrong).success).toBe(false);
  });

  it('identityReport keeps only what the provider said, and self when the check did not attest', () => {
    expect(identityReport({ attested_by: 'self', file: null, record: null })).toEqual({ attested_by: 'self', provider: null });
  });

  for (const lang of ['en', 'zh'] as const) {
    it(`the ${lang} page says, next to each run, who attests its identity`, () => {
      const m = messages(lang);
      const html = renderReport(report(), lang);
      const [baseline, candidate] = identityRow(html, m.identity);
      expect(baseline).toContain('<code>https://api.github.com</code>');
      expect(baseline).toContain('2026-11-30T10:00:00.000Z');
      expect(baseline).toContain(`title="${DIGEST}"`);
      expect(baseline).toContain(htmlText(m.identity_provider.split('{')[0]!));
      expect(candidate).toContain(htmlText(m.identity_self));
      // Text, not a link: the API host is not the runs' server, so verify-bundle would refuse a link to it.
      expect(html).not.toContain('href="https://api.github.com');
    });
  }
});
