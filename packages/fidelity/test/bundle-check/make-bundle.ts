// A small hand-made bundle for verify-bundle tests: real seal, real report.json, fake media bytes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatSeal } from '../../src/output/seal.js';
import { reportJsonText } from '../../src/bundle/write.js';
import { DEFAULT_POLICY, disclaimerFor } from '../../src/policy/default.js';
import { renderReport } from '../../src/pages/page.js';
import { Report } from '../../src/schemas/report.js';

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** An ISO BMFF box header first (verify-bundle checks an .mp4 is one), then bytes that are not really an MP4. */
const box = (text: string) => Buffer.concat([Buffer.from([0, 0, 0, 16]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from(text)]);
export const MEDIA_A = box('not really an mp4: baseline');
export const MEDIA_B = box('not really an mp4: candidate');
/** A 1x1 PNG: the page's CSS background, at a place compare writes a PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');
export const BG = 'pairs/2-1/measurement-r000-c000/ssim-heatmap.png';

function run(role: 'baseline' | 'candidate', id: number): Report['runs'][number] {
  return {
    role,
    run_id: id,
    run_attempt: 1,
    head_sha: 'a'.repeat(40),
    server_url: 'https://github.com',
    repository: 'example-org/bench',
    workflow: 'wf',
    job: 'job',
    artifact: { id: id + 1, name: `art-${id}-1` },
    hardware: { gpu_model: role === 'baseline' ? 'H200' : 'B200', gpus_allocated: 8, gpus_participating: 2 },
    runtime: null,
    plan_id: 'p',
    plan_sha256: 'b'.repeat(64),
    source: { name: `run-${id}`, kind: 'directory' },
    digest: { checked: false, archive_sha256: null, expected: null },
    links: { run: `https://github.com/example-org/bench/actions/runs/${id}/attempts/1`, artifact: `https://github.com/example-org/bench/actions/runs/${id}/artifacts/${id + 1}` },
    sources_dir: `sources/${id}-1`,
    slots: { warmup: 0, measurement: 1, ok: 1, failed: 0 },
    power: null,
  };
}

export function makeReport(): Report {
  return {
    schema_version: 1,
    generated_at: '2026-01-01T00:00:00.000Z',
    tool: { name: 'fidelity', version: '0.0.0' },
    decoder: { ffmpeg_version: 'ffmpeg version x', sha256: 'c'.repeat(64), source: 'installer', ffprobe_version: 'ffprobe version x', ffprobe_sha256: 'd'.repeat(64) },
    policy: DEFAULT_POLICY,
    disclaimer: disclaimerFor(DEFAULT_POLICY),
    runs: [run('baseline', 1), run('candidate', 2)],
    comparisons: [
      {
        baseline_run_id: 1,
        baseline_run_attempt: 1,
        candidate_run_id: 2,
        candidate_run_attempt: 1,
        baseline_gpu_model: 'H200',
        candidate_gpu_model: 'B200',
        summary: { planned: 1, valid_pairs: 0, passed: 0, failed: 0, invalid: 1 },
        pairs: [
          {
            slot_id: 'measurement-r000-c000',
            case_id: 'c',
            prompt: 'p',
            seed: 1,
            repetition: 0,
            status: 'invalid',
            reasons: ['UNDECODABLE'],
            reason_details: [{ code: 'UNDECODABLE', message: 'x', side: null }],
            baseline_media: `media/${sha(MEDIA_A)}.mp4`,
            candidate_media: `media/${sha(MEDIA_B)}.mp4`,
            baseline_status: 'ok',
            candidate_status: 'ok',
            baseline_error: null,
            candidate_error: null,
            video: null,
            audio: null,
            checks: [],
            files: { frames_csv: 'pairs/2-1/measurement-r000-c000/frames.csv' },
          },
        ],
        cases: [],
        files: {},
      },
    ],
  };
}

const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' file: data:; media-src 'self' file:; script-src 'none'; base-uri 'none'; form-action 'none'".replaceAll("'", '&#39;');
/** What every page must begin with: the policy first in <head>, then the charset. */
export const HEAD = `<!doctype html><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="${POLICY}"><meta charset="utf-8">`;

export const PAGE = `${HEAD}<style>body{background:url(${BG})}</style></head><body>
<a href="#top">top</a> <a href="report.json">json</a> <a href="index.zh.html">zh</a>
<video preload="none" src="media/${sha(MEDIA_A)}.mp4"></video>
<img src="data:image/png;base64,AAAA" alt="">
<a href="https://github.com/example-org/bench/actions/runs/1/attempts/1">run</a>
<a href="sources/1-1/run.json">run.json</a>
</body></html>
`;

function sealDir(dir: string): void {
  const entries: { path: string; sha256: string }[] = [];
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) visit(r);
      else if (r !== 'SHA256SUMS') entries.push({ path: r, sha256: sha(readFileSync(path.join(dir, r))) });
    }
  };
  visit('');
  writeFileSync(path.join(dir, 'SHA256SUMS'), formatSeal(entries));
}

/** Writes the bundle into dir (which must not exist) and seals it; `page` replaces index.html before sealing. */
export function makeBundle(dir: string, page = PAGE): void {
  const w = (rel: string, data: string | Buffer) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), data);
  };
  w('report.json', reportJsonText(makeReport()));
  w('index.html', page);
  w('index.zh.html', `${HEAD}</head><body><a href="index.html">en</a></body></html>`);
  w(BG, PNG);
  w(`media/${sha(MEDIA_A)}.mp4`, MEDIA_A);
  w(`media/${sha(MEDIA_B)}.mp4`, MEDIA_B);
  w('pairs/2-1/measurement-r000-c000/frames.csv', 'frame\n');
  for (const id of [1, 2]) for (const f of ['ci.json', 'plan.json', 'run.json', 'original-SHA256SUMS']) w(`sources/${id}-1/${f}`, `{"${f}":${id}}`);
  sealDir(dir);
}

export { sealDir };

/** The two pages the bundle writer renders for makeReport(), byte for byte. */
export function realPages(): { en: string; zh: string } {
  const report = Report.parse(makeReport());
  return { en: renderReport(report, 'en'), zh: renderReport(report, 'zh') };
}

/**
 * The same bundle with the real rendered pages; `edit` changes the English
 * page before the seal is made, as someone reselling a doctored bundle would.
 */
export function makeRealBundle(dir: string, edit: (html: string) => string = (h) => h): void {
  const pages = realPages();
  makeBundle(dir, edit(pages.en));
  writeFileSync(path.join(dir, 'index.zh.html'), pages.zh);
  sealDir(dir);
}
