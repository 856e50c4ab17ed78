/**
 * One fixture per rule of docs/run-archive.md (and per extra rule this project
 * adds): each breaks exactly that rule of a valid run and must be refused
 * with exactly the listed codes (a rule's consequences included, e.g. an
 * unsealed media file is both SEAL_EXTRA_FILE and MEDIA_NOT_SEALED), nothing
 * less and nothing unrelated.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/archive/verify.js';
import { CASES, media, render, rm, sha256, tempRoot, validDraft, writeDir, type Draft } from './fixture.js';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await tempRoot('rules');
});
afterAll(() => rm(root, { recursive: true, force: true }));

type Case = [name: string, mutate: (d: Draft) => void, codes: string[]];

/** The fixture's ci.json as GitLab CI's shape (docs/run-archive.md, "ci.json"): run_id is the job id. */
function asGitlab(d: Draft): void {
  const { repository: _r, workflow: _w, artifact, ...rest } = d.ci;
  d.ci = { ...rest, schema_version: 2, provider: 'gitlab', project_path: 'example-org/serving/video-serving-bench', project_id: 4242, pipeline_id: 30054883, artifact: { name: artifact.name } };
}

/** The same for any other CI: a run reference in words, no server. */
function asOther(d: Draft): void {
  const { server_url: _s, artifact, ...rest } = d.ci;
  d.ci = { ...rest, schema_version: 2, provider: 'other', run_ref: 'Jenkins video-serving-bench #812', artifact: { name: artifact.name } };
}

const rec = (d: Draft, slot: string) => d.run.records.find((r: { slot_id: string }) => r.slot_id === slot);
const zeros = '0'.repeat(64);

const cases: Case[] = [
  // SHA256SUMS
  ['no SHA256SUMS', (d) => void (d.seal = () => null), ['SEAL_MISSING']],
  ['a sealed file is absent', (d) => void (d.seal = (l) => [...l, `${zeros}  telemetry/server_timing.jsonl`].sort((a, b) => a.slice(66).localeCompare(b.slice(66)))), ['SEAL_MISSING_FILE']],
  ['a file is not sealed', (d) => void (d.seal = (l) => l.filter((x) => !x.endsWith('telemetry/gpu_metrics.csv'))), ['SEAL_EXTRA_FILE']],
  ['a line is listed twice', (d) => void (d.seal = (l) => [...l, l[0]!]), ['SEAL_DUPLICATE_LINE']],
  ['a malformed line (one space)', (d) => void (d.seal = (l) => l.map((x, i) => (i === 1 ? x.replace('  ', ' ') : x))), ['MEDIA_NOT_SEALED', 'SEAL_EXTRA_FILE', 'SEAL_MALFORMED_LINE']],
  ['an uppercase digest', (d) => void (d.seal = (l) => l.map((x, i) => (i === 1 ? x.slice(0, 64).toUpperCase() + x.slice(64) : x))), ['MEDIA_NOT_SEALED', 'SEAL_EXTRA_FILE', 'SEAL_MALFORMED_LINE']],
  ['a "./" path', (d) => void (d.seal = (l) => l.map((x) => (x.endsWith('  ci.json') ? x.replace('  ci.json', '  ./ci.json') : x))), ['SEAL_MALFORMED_LINE']],
  ['CRLF line endings', (d) => void (d.seal = (l) => l.map((x) => `${x}\r`)), ['MEDIA_NOT_SEALED', 'SEAL_EXTRA_FILE', 'SEAL_MALFORMED_LINE']],
  ['an absolute path', (d) => void (d.seal = (l) => [...l, `${zeros}  /etc/passwd`]), ['SEAL_ABSOLUTE_PATH']],
  ['a ".." path', (d) => void (d.seal = (l) => [...l, `${zeros}  media/../../outside.mp4`]), ['SEAL_PATH_TRAVERSAL']],
  ['SHA256SUMS lists itself', (d) => void (d.seal = (l) => [...l, `${zeros}  SHA256SUMS`]), ['SEAL_LISTS_ITSELF']],
  ['a file does not match its digest', (d) => void (d.seal = (l) => l.map((x) => (x.endsWith('media/warmup-000.mp4') ? zeros + x.slice(64) : x))), ['SEAL_HASH_MISMATCH']],
  ['an empty SHA256SUMS', (d) => void (d.sealText = ''), ['MEDIA_NOT_SEALED', 'SEAL_EXTRA_FILE']],

  // ci.json
  ['no ci.json', (d) => void d.omit.push('ci.json'), ['CI_MISSING']],
  ['ci.json is not JSON', (d) => void (d.raw.ci = '{"schema_version": 1,,}'), ['CI_INVALID_JSON']],
  ['ci.json is not UTF-8', (d) => void (d.raw.ci = Buffer.from([0x7b, 0xff, 0x7d])), ['CI_INVALID_JSON']],
  ['ci.json schema_version 3', (d) => void (d.ci.schema_version = 3), ['CI_SCHEMA_VERSION']],
  ['ci.json names a provider this version does not read', (d) => void ((d.ci.schema_version = 2), (d.ci.provider = 'circleci')), ['CI_PROVIDER']],
  ['a GitLab ci.json says schema_version 1', (d) => void (asGitlab(d), (d.ci.schema_version = 1)), ['CI_SCHEMA_VERSION']],
  ['a GitLab ci.json with a run_attempt other than 1', (d) => void (asGitlab(d), (d.ci.run_attempt = 2), (d.run.run_attempt = 2), (d.ci.artifact.name = 'h3-video-30054883436-2')), ['CI_RUN_ATTEMPT']],
  ['a GitLab project_path without a namespace', (d) => void (asGitlab(d), (d.ci.project_path = 'video-serving-bench')), ['CI_REPOSITORY']],
  ['a GitLab ci.json without its pipeline id', (d) => void (asGitlab(d), delete d.ci.pipeline_id), ['CI_SCHEMA']],
  ['an "other" ci.json without a run reference', (d) => void (asOther(d), delete d.ci.run_ref), ['CI_SCHEMA']],
  ['an "other" run reference of two lines', (d) => void (asOther(d), (d.ci.run_ref = 'Jenkins #812\nsee https://example.com')), ['CI_SCHEMA']],
  ['run_id is not a positive integer', (d) => void ((d.ci.run_id = -5), (d.ci.artifact.name = 'h3-video--5-1'), (d.run.run_id = -5)), ['CI_RUN_ID', 'RUN_SCHEMA']],
  ['run_id is a string', (d) => void (d.ci.run_id = '30054883436'), ['CI_RUN_ID']],
  ['run_attempt is 0', (d) => void ((d.ci.run_attempt = 0), (d.ci.artifact.name = 'h3-video-30054883436-0'), (d.run.run_attempt = 0)), ['CI_RUN_ATTEMPT', 'RUN_SCHEMA']],
  ['run_attempt is 1.5', (d) => void (d.ci.run_attempt = 1.5), ['CI_RUN_ATTEMPT']],
  ['head_sha is short', (d) => void (d.ci.head_sha = 'c2f27fe'), ['CI_HEAD_SHA']],
  ['head_sha is not hex', (d) => void (d.ci.head_sha = 'z'.repeat(40)), ['CI_HEAD_SHA']],
  ['repository is not owner/name', (d) => void (d.ci.repository = 'video-serving-bench'), ['CI_REPOSITORY']],
  ['server_url is not a URL', (d) => void (d.ci.server_url = 'github'), ['CI_SERVER_URL']],
  ['a required field is missing', (d) => void delete d.ci.workflow, ['CI_SCHEMA']],
  ['artifact.name has the wrong suffix', (d) => void (d.ci.artifact.name = 'h3-video-30054883436-2'), ['CI_ARTIFACT_NAME_SUFFIX']],
  ['artifact.name has no suffix', (d) => void (d.ci.artifact.name = 'h3-video'), ['CI_ARTIFACT_NAME_SUFFIX']],
  ['more GPUs participate than are allocated', (d) => void ((d.ci.hardware.gpus_participating = 9), (d.run.expected_gpu_count = 9)), ['CI_GPU_COUNT']],

  // plan.json
  ['no plan.json', (d) => void d.omit.push('plan.json'), ['PLAN_MISSING']],
  ['plan.json is not JSON', (d) => void (d.raw.plan = 'plan'), ['PLAN_INVALID_JSON']],
  ['plan.json has no cases', (d) => void (d.plan.cases = []), ['PLAN_SCHEMA']],
  ['plan.json names a case twice', (d) => void (d.plan.cases[1].case_id = d.plan.cases[0].case_id), ['PLAN_DUPLICATE_CASE', 'RECORD_CASE_MISMATCH', 'RECORD_CASE_MISMATCH']],

  // run.json identity
  ['no run.json', (d) => void d.omit.push('run.json'), ['RUN_MISSING']],
  ['run.json records is not a list', (d) => void (d.run.records = {}), ['RUN_SCHEMA']],
  ['run.json is a list', (d) => void (d.raw.run = '[]'), ['RUN_SCHEMA']],
  ['run.json is not JSON', (d) => void (d.raw.run = '[1,'), ['RUN_INVALID_JSON']],
  ['run_id differs from ci.json', (d) => void (d.run.run_id = 30054883437), ['RUN_ID_MISMATCH']],
  ['run_attempt differs from ci.json', (d) => void (d.run.run_attempt = 2), ['RUN_ATTEMPT_MISMATCH']],
  ['plan_sha256 is not the hash of plan.json', (d) => void ((d.autoPlanSha = false), (d.run.plan_sha256 = sha256('another plan'))), ['PLAN_SHA_MISMATCH']],
  ['plan_sha256 is not 64 hex', (d) => void ((d.autoPlanSha = false), (d.run.plan_sha256 = 'abc')), ['RUN_SCHEMA']],
  ['measurement window ends before it starts', (d) => void (d.run.measurement_window = { start_unix: 20, end_unix: 10 }), ['RUN_WINDOW_INVALID']],

  // slots
  ['a measurement slot is missing', (d) => void ((d.run.records = d.run.records.filter((r: { slot_id: string }) => r.slot_id !== 'measurement-r001-c000')), delete d.files['media/measurement-r001-c000.mp4']), ['SLOT_MISSING']],
  ['a failed record was dropped', (d) => void (d.run.records = d.run.records.slice(0, 4)), ['SLOT_MISSING']],
  ['a slot appears twice (a retry)', (d) => void d.run.records.push({ ...rec(d, 'measurement-r001-c001'), status: 'failed' }), ['SLOT_DUPLICATE']],
  ['records out of order', (d) => void ([d.run.records[1], d.run.records[2]] = [d.run.records[2], d.run.records[1]]), ['SLOT_ORDER']],
  ['warmup after the measurements', (d) => void d.run.records.push(d.run.records.shift()), ['SLOT_ORDER']],
  ['a slot beyond the plan', (d) => {
    const extra = { ...rec(d, 'measurement-r001-c000'), slot_id: 'measurement-r002-c000', repetition: 2, media: 'media/measurement-r002-c000.mp4' };
    d.run.records.push(extra);
    d.files['media/measurement-r002-c000.mp4'] = media('measurement-r002-c000');
  }, ['SLOT_UNEXPECTED']],
  ['a slot id that is neither kind', (d) => {
    Object.assign(rec(d, 'measurement-r000-c000'), { slot_id: 'measurement-0-0', media: null, status: 'failed', error: 'x' });
    delete d.files['media/measurement-r000-c000.mp4'];
  }, ['SLOT_ID_INVALID', 'SLOT_MISSING']],
  ['a warmup named otherwise', (d) => {
    Object.assign(rec(d, 'warmup-000'), { slot_id: 'warmup-0', media: 'media/warmup-0.mp4' });
    d.files['media/warmup-0.mp4'] = d.files['media/warmup-000.mp4']!;
    delete d.files['media/warmup-000.mp4'];
  }, ['SLOT_MISSING', 'WARMUP_NAME']],
  ['one warmup too few', (d) => void ((d.plan.warmup_runs = 2)), ['SLOT_MISSING', 'WARMUP_COUNT']],
  ['one warmup too many', (d) => void (d.plan.warmup_runs = 0), ['SLOT_UNEXPECTED', 'WARMUP_COUNT']],
  ['a warmup with kind measurement', (d) => void (rec(d, 'warmup-000').kind = 'measurement'), ['RECORD_KIND_MISMATCH', 'WARMUP_COUNT']],

  // records against the plan
  ['a measurement names the wrong case', (d) => void Object.assign(rec(d, 'measurement-r000-c000'), { case_id: CASES[1]!.case_id, seed: CASES[1]!.seed }), ['RECORD_CASE_MISMATCH']],
  ['a warmup names an unknown case', (d) => void (rec(d, 'warmup-000').case_id = 'nope'), ['RECORD_UNKNOWN_CASE']],
  ['a prompt differs from the plan', (d) => void (rec(d, 'measurement-r000-c001').prompt = 'A person says goodbye.'), ['RECORD_PROMPT_MISMATCH']],
  ['a seed differs from the plan', (d) => void (rec(d, 'measurement-r001-c000').seed = 12), ['RECORD_SEED_MISMATCH']],
  ['a repetition disagrees with the slot id', (d) => void (rec(d, 'measurement-r001-c000').repetition = 0), ['RECORD_REPETITION_MISMATCH']],
  ['a negative latency', (d) => void (rec(d, 'measurement-r000-c000').latency_s = -1), ['RECORD_LATENCY_INVALID']],
  ['an unknown status', (d) => void (rec(d, 'measurement-r000-c000').status = 'skipped'), ['RUN_SCHEMA']],
  ['a record window ends before it starts', (d) => void (rec(d, 'measurement-r000-c000').window = { start_unix: 10, end_unix: 5 }), ['RECORD_WINDOW_INVALID']],
  ['an ok record without media', (d) => void ((rec(d, 'measurement-r000-c000').media = null), delete d.files['media/measurement-r000-c000.mp4']), ['RECORD_OK_WITHOUT_MEDIA']],
  ['a failed record without error', (d) => void delete rec(d, 'measurement-r001-c001').error, ['RECORD_FAILED_WITHOUT_ERROR']],
  ['a failed record with an empty error', (d) => void (rec(d, 'measurement-r001-c001').error = ' '), ['RECORD_FAILED_WITHOUT_ERROR']],

  // media
  ['a failed record with media', (d) => void ((rec(d, 'measurement-r001-c001').media = 'media/measurement-r001-c001.mp4'), (d.files['media/measurement-r001-c001.mp4'] = 'x')), ['MEDIA_ON_FAILED_RECORD']],
  ['media is not in the archive', (d) => void ((d.seal = (l) => l.filter((x) => !x.endsWith('media/warmup-000.mp4'))), delete d.files['media/warmup-000.mp4']), ['MEDIA_MISSING']],
  ['media is present but not sealed', (d) => void (d.seal = (l) => l.filter((x) => !x.endsWith('media/warmup-000.mp4'))), ['MEDIA_NOT_SEALED', 'SEAL_EXTRA_FILE']],
  ['media path climbs out', (d) => void (rec(d, 'warmup-000').media = '../warmup-000.mp4'), ['MEDIA_PATH_UNSAFE', 'MEDIA_UNREFERENCED']],
  ['media path is absolute', (d) => void (rec(d, 'warmup-000').media = '/tmp/warmup-000.mp4'), ['MEDIA_PATH_UNSAFE', 'MEDIA_UNREFERENCED']],
  ['media path names another slot', (d) => void (rec(d, 'warmup-000').media = 'media/measurement-r000-c000.mp4'), ['MEDIA_PATH_MISMATCH', 'MEDIA_UNREFERENCED']],
  ['a media file no record names', (d) => void (d.files['media/spare.mp4'] = 'x'), ['MEDIA_UNREFERENCED']],
];

describe('each rule has its own reason code', () => {
  it.each(cases)('%s', async (_name, mutate, codes) => {
    const draft = validDraft();
    mutate(draft);
    const files = render(draft);
    const source = await writeDir(files, path.join(root, `case-${n++}`));
    const result = await verifyRun(source);
    expect(result.ok).toBe(false);
    const got = [...new Set(result.ok ? [] : result.problems.map((p) => p.code))].sort();
    expect(got, JSON.stringify(result.ok ? [] : result.problems, null, 1)).toEqual([...new Set(codes)].sort());
    for (const p of result.ok ? [] : result.problems) expect(p.message.length).toBeGreaterThan(0);
  });
});

describe('sealed oddities the run archive format does not forbid are warnings, not refusals', () => {
  const warnings: Case[] = [
    ['an unknown file, sealed', (d) => void (d.files['notes.txt'] = 'hello'), ['ARCHIVE_UNKNOWN_FILE']],
    ['expected_gpu_count differs from gpus_participating', (d) => void (d.run.expected_gpu_count = 4), ['RUN_GPU_COUNT_MISMATCH']],
  ];
  it.each(warnings)('%s', async (_name, mutate, codes) => {
    const draft = validDraft();
    mutate(draft);
    const source = await writeDir(render(draft), path.join(root, `warn-${n++}`));
    const result = await verifyRun(source);
    expect(result.ok, JSON.stringify(result.ok ? null : result.problems)).toBe(true);
    if (result.ok) {
      expect([...new Set(result.warnings.map((w) => w.code))].sort()).toEqual(codes);
      await result.run.close();
    }
  });
});
