import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import type { Io } from '../src/io.js';
import { render, validDraft, writeDir, writeTarGz, writeZip, tarItems, zipItems } from '../../fidelity/test/archive/fixture.js';

let root: string;
let dir: string;
let zip: string;
let tgz: string;
let bad: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fidelity-verify-cli-'));
  const files = render(validDraft());
  dir = await writeDir(files, path.join(root, 'run'));
  zip = await writeZip(zipItems(files), path.join(root, 'run.zip'));
  tgz = await writeTarGz(tarItems(files, 'h3-video-30054883436-1/'), path.join(root, 'run.tar.gz'));
  const draft = validDraft();
  draft.run.run_attempt = 2;
  draft.seal = (lines) => [...lines, `${'0'.repeat(64)}  ../outside`];
  bad = await writeDir(render(draft), path.join(root, 'bad'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('fidelity verify, runs of other CI providers', () => {
  it('prints a GitLab run with its job, pipeline and artifact links, and an "other" run with its reference and no link', async () => {
    const gl = validDraft();
    {
      const { repository: _r, workflow: _w, artifact, ...rest } = gl.ci;
      gl.ci = { ...rest, schema_version: 2, provider: 'gitlab', server_url: 'https://gitlab.example.com', project_path: 'example-org/serving/bench', project_id: 7, pipeline_id: 99, artifact: { name: artifact.name } };
    }
    const glZip = await writeZip(zipItems(render(gl)), path.join(root, 'gitlab.zip'));
    const g = await cli('verify', glZip);
    expect(g.code, g.err).toBe(0);
    expect(g.out).toMatch(/ci\s+GitLab CI\n/);
    expect(g.out).toMatch(/run\s+job 30054883436 in pipeline 99  example-org\/serving\/bench \/ H3 video H200 smoke\n/);
    expect(g.out).toContain('run       https://gitlab.example.com/example-org/serving/bench/-/jobs/30054883436\n');
    expect(g.out).toContain('pipeline  https://gitlab.example.com/example-org/serving/bench/-/pipelines/99\n');
    expect(g.out).toContain('artifact  https://gitlab.example.com/example-org/serving/bench/-/jobs/30054883436/artifacts/browse\n');
    // Attestation is GitHub's only: asked for on a GitLab run, it is refused with its own code.
    const attested = await cli('verify', glZip, '--provider', '--json');
    expect(attested.code).toBe(2);
    expect(JSON.parse(attested.out).errors.map((e: { code: string }) => e.code)).toEqual(['PROVENANCE_UNSUPPORTED']);

    const other = validDraft();
    {
      const { server_url: _s, repository: _r, workflow: _w, artifact, ...rest } = other.ci;
      other.ci = { ...rest, schema_version: 2, provider: 'other', run_ref: 'Jenkins bench #812', artifact: { name: artifact.name } };
    }
    const o = await cli('verify', await writeDir(render(other), path.join(root, 'other')));
    expect(o.code, o.err).toBe(0);
    expect(o.out).toMatch(/ci\s+other CI \(no links\): Jenkins bench #812\n/);
    expect(o.out).toContain('links     none (provider "other": the run is named by its reference above)');
    expect(o.out).not.toContain('https://');
  });
});

describe('fidelity verify', () => {
  it('prints a summary of a valid run and exits 0, for a folder, a zip and a tar.gz', async () => {
    for (const source of [dir, zip, tgz]) {
      const { code, out, err } = await cli('verify', source);
      expect(code, err).toBe(0);
      // The fixture's "media" are a few bytes of text: ffprobe cannot read them, which is a warning per slot, never a refusal.
      expect(err.trim().split('\n').map((l) => l.replace(/:.*/, ''))).toEqual(['warmup-000', 'measurement-r000-c000', 'measurement-r000-c001', 'measurement-r001-c000'].map((s) => `warning UNDECODABLE slot ${s}`));
      expect(out).toMatch(/media\s+4 ok slots probed against the plan \(64x48, 24 fps, 12 frames; 32000 Hz, 2 channels\): 0 as planned, 4 not\n/);
      expect(out).toContain(`valid run archive: ${source}`);
      expect(out).toMatch(/site\s+H200 \(2 of 8 GPUs\)/);
      expect(out).toMatch(/run\s+30054883436 attempt 1/);
      expect(out).toMatch(/commit\s+c2f27fe453ef\n/);
      expect(out).toMatch(/slots\s+5 planned: warmups 1 ok \/ 0 failed, measurements 3 ok \/ 1 failed/);
      expect(out).toContain('failed measurement-r001-c001: request timed out after 600 s');
      expect(out).toContain('https://github.com/example-org/video-serving-bench/actions/runs/30054883436/attempts/1');
      expect(out).toContain(source === dir ? 'not applicable' : 'not checked');
    }
  });

  it('probes each ok slot against the plan: media that break it are warnings listed like failed requests, and the run stays valid', async () => {
    const fixtures = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
    const h200 = await cli('verify', path.join(fixtures, 'h200'));
    expect(h200.code, h200.err).toBe(0);
    expect(h200.err).toBe('');
    expect(h200.out).toContain('  media     11 ok slots probed against the plan (112x64, 12 fps, 12 frames; 32000 Hz, 2 channels): 11 as planned, 0 not\n');
    const b200 = await cli('verify', path.join(fixtures, 'b200'));
    expect(b200.code, b200.err).toBe(0);
    expect(b200.out).toContain(
      [
        '            failed measurement-r000-c006: request timed out after 75 s',
        '  media     10 ok slots probed against the plan (112x64, 12 fps, 12 frames; 32000 Hz, 2 channels): 8 as planned, 2 not',
        '            MEDIA_PLAN_MISMATCH measurement-r000-c007: frames 10 (plan 12)',
        '            MEDIA_PLAN_MISMATCH measurement-r000-c008: sample_rate none (plan 32000), channels none (plan 2)',
        '',
      ].join('\n'),
    );
    expect(b200.err).toContain('warning MEDIA_PLAN_MISMATCH slot measurement-r000-c007: its media differ from the plan (112x64, 12 fps, 12 frames; 32000 Hz, 2 channels): frames 10 (plan 12) (media/measurement-r000-c007.mp4)\n');
    const json = await cli('verify', path.join(fixtures, 'b200'), '--json');
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out);
    expect(doc.warnings.map((w: { code: string }) => w.code)).toEqual(['MEDIA_PLAN_MISMATCH', 'MEDIA_PLAN_MISMATCH']);
    expect(doc.media).toMatchObject({ checked: true, plan: { video: { width: 112, height: 64, fps: 12, frames: 12 } } });
    expect(doc.media.slots.filter((x: { outcome: string }) => x.outcome === 'mismatch').map((x: { slot_id: string }) => x.slot_id)).toEqual(['measurement-r000-c007', 'measurement-r000-c008']);
  });

  it('without a usable ffprobe verifies the archive and says the media were not checked (exit 0, a warning)', () => {
    const bin = fileURLToPath(new URL('../bin/fidelity.js', import.meta.url));
    if (!existsSync(fileURLToPath(new URL('../dist/main.js', import.meta.url)))) return; // built by npm test
    const fixtures = fileURLToPath(new URL('../../../fixtures/runs/', import.meta.url));
    const missing = path.join(root, 'no-such-folder', 'ffprobe');
    const r = spawnSync(process.execPath, [bin, 'verify', path.join(fixtures, 'h200')], { encoding: 'utf8', env: { ...process.env, FIDELITY_FFPROBE: missing, FIDELITY_FFMPEG: '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/media\s+not checked against the plan \(112x64, 12 fps, 12 frames; 32000 Hz, 2 channels\): no usable ffprobe \(warning FFMPEG_(NOT_FOUND|BROKEN)\)/);
    expect(r.stderr).toMatch(/^warning FFMPEG_(NOT_FOUND|BROKEN) the media were not checked against the plan/m);
  });

  it('lists every problem with its code and where, and exits 2', async () => {
    const { code, out, err } = await cli('verify', bad);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('error RUN_ATTEMPT_MISMATCH run.json run_attempt 2 differs from ci.json run_attempt 1 (run.json $.run_attempt)');
    expect(err).toMatch(/error SEAL_PATH_TRAVERSAL .* \(SHA256SUMS:9\)/);
    expect(err).toContain('run archive NOT valid');
  });

  it('--json gives one document: ok, run identity, errors[].code', async () => {
    const good = await cli('verify', zip, '--json');
    expect(good.code).toBe(0);
    const doc = JSON.parse(good.out);
    expect(doc).toMatchObject({ ok: true, errors: [], run: { site: 'H200', run_id: 30054883436, run_attempt: 1, source: { kind: 'zip' }, digest: { checked: false } } });
    const refused = await cli('verify', bad, '--json');
    expect(refused.code).toBe(2);
    expect(refused.err).toBe('');
    const badDoc = JSON.parse(refused.out);
    expect(badDoc.ok).toBe(false);
    expect(badDoc.errors.map((e: { code: string }) => e.code).sort()).toEqual(['RUN_ATTEMPT_MISMATCH', 'SEAL_PATH_TRAVERSAL']);
    expect(badDoc.errors[0].where).toBeDefined();
  });

  it('--require-digest refuses a zip without its digest, accepts it with one', async () => {
    const missing = await cli('verify', zip, '--require-digest', '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out).errors.map((e: { code: string }) => e.code)).toEqual(['DIGEST_MISSING']);
    const { createHash } = await import('node:crypto');
    const { readFile } = await import('node:fs/promises');
    const digest = createHash('sha256').update(await readFile(zip)).digest('hex');
    await writeFile(`${zip}.sha256`, `sha256:${digest}\n`);
    const present = await cli('verify', zip, '--require-digest');
    expect(present.code).toBe(0);
    expect(present.out).toContain(`checked: the archive's SHA-256 ${digest}`);
    await rm(`${zip}.sha256`);
  });

  it('limits can be raised or lowered from the command line', async () => {
    const low = await cli('verify', dir, '--max-files', '3', '--json');
    expect(low.code).toBe(2);
    expect(JSON.parse(low.out).errors[0].code).toBe('LIMIT_FILES');
    const small = await cli('verify', dir, '--max-file-size', '64KiB', '--max-total-size', '1GiB');
    expect(small.code, small.err).toBe(0);
    const tiny = await cli('verify', dir, '--max-total-size', '1k', '--json');
    expect(JSON.parse(tiny.out).errors[0].code).toBe('LIMIT_TOTAL_SIZE');
    const nonsense = await cli('verify', dir, '--max-file-size', 'lots');
    expect(nonsense.code).toBe(2);
    expect(nonsense.err).toContain('error USAGE');
  });

  it('a missing path, a non-archive and a missing argument exit 2 with a specific code', async () => {
    const missing = await cli('verify', path.join(root, 'nope.zip'), '--json');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out).errors[0].code).toBe('SOURCE_NOT_FOUND');
    await writeFile(path.join(root, 'fake.zip'), 'not a zip');
    const fake = await cli('verify', path.join(root, 'fake.zip'));
    expect(fake.code).toBe(2);
    expect(fake.err).toContain('error ARCHIVE_UNREADABLE');
    const none = await cli('verify', '--json');
    expect(none.code).toBe(2);
    expect(JSON.parse(none.out).errors[0].code).toBe('USAGE');
  });

  it('the installed command exits 0 for a valid run and 2 for an invalid one', () => {
    const bin = fileURLToPath(new URL('../bin/fidelity.js', import.meta.url));
    if (!existsSync(fileURLToPath(new URL('../dist/main.js', import.meta.url)))) return; // built by npm test
    const good = spawnSync(process.execPath, [bin, 'verify', tgz], { encoding: 'utf8' });
    expect(good.status, good.stderr).toBe(0);
    const badRun = spawnSync(process.execPath, [bin, 'verify', bad], { encoding: 'utf8' });
    expect(badRun.status).toBe(2);
    expect(badRun.stderr).toContain('error RUN_ATTEMPT_MISMATCH');
  });
});
