import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVerifiedRun, verifyRun } from '../../src/archive/verify.js';
import { summarizeRun } from '../../src/archive/summary.js';
import { FidelityError } from '../../src/errors.js';
import { media, render, rm, sha256, tarItems, tempRoot, validDraft, writeDir, writeTarGz, writeZip, zipItems } from './fixture.js';

let root: string;
let files: Map<string, Buffer>;
beforeAll(async () => {
  root = await tempRoot('valid');
  files = render(validDraft());
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function layouts(): Promise<[string, string, string][]> {
  return [
    ['folder', 'directory', await writeDir(files, path.join(root, 'run-dir'))],
    ['zip, files at the root', 'zip', await writeZip(zipItems(files), path.join(root, 'root.zip'))],
    ['zip, one top-level folder', 'zip', await writeZip([{ name: 'h3-video-30054883436-1/', directory: true }, ...zipItems(files, 'h3-video-30054883436-1/')], path.join(root, 'folder.zip'))],
    ['tar.gz, one top-level folder', 'tar.gz', await writeTarGz([{ name: 'run/', type: 'directory' }, ...tarItems(files, 'run/')], path.join(root, 'folder.tar.gz'))],
    ['tar.gz, "./" names', 'tar.gz', await writeTarGz([{ name: './', type: 'directory' }, ...tarItems(files, './')], path.join(root, 'dot.tgz'))],
  ];
}

describe('a valid run', () => {
  it('is accepted as a folder, a zip (root or one folder) and a tar.gz, with the same identity', async () => {
    const temp = path.join(root, 'temp-area');
    await import('node:fs/promises').then((fs) => fs.mkdir(temp));
    for (const [label, kind, source] of await layouts()) {
      const result = await verifyRun(source, { tempDir: temp });
      if (!result.ok) throw new Error(`${label}: ${JSON.stringify(result.problems, null, 2)}`);
      const run = result.run;
      expect(run.source).toEqual({ path: source, kind });
      expect(result.warnings).toEqual([]);
      expect(run.ci.run_id).toBe(30054883436);
      expect(run.plan_sha256).toBe(sha256(files.get('plan.json')!));
      expect(run.links).toEqual({
        run: 'https://github.com/example-org/video-serving-bench/actions/runs/30054883436/attempts/1',
        artifact: 'https://github.com/example-org/video-serving-bench/actions/runs/30054883436/artifacts/4242001',
      });
      expect(run.records.map((r) => r.slot_id)).toEqual(['warmup-000', 'measurement-r000-c000', 'measurement-r000-c001', 'measurement-r001-c000', 'measurement-r001-c001']);
      expect([...run.media.keys()]).toEqual(['warmup-000', 'measurement-r000-c000', 'measurement-r000-c001', 'measurement-r001-c000']);
      expect(run.media.get('measurement-r000-c001')).toEqual({
        slot_id: 'measurement-r000-c001',
        path: 'media/measurement-r000-c001.mp4',
        size: media('measurement-r000-c001').length,
        sha256: sha256(media('measurement-r000-c001')),
      });
      expect(run.files['plan.json'].equals(files.get('plan.json')!)).toBe(true);
      expect(run.files.SHA256SUMS.equals(files.get('SHA256SUMS')!)).toBe(true);
      expect(run.telemetry.gpu_metrics_csv?.toString()).toContain('power.draw');
      expect(run.telemetry.server_timing_jsonl).toBeNull();

      // Every ok slot's media reads back byte for byte; a failed slot has none.
      for (const slot of run.media.keys()) {
        const file = await run.mediaPath(slot);
        expect((await readFile(file)).equals(media(slot)), `${label} ${slot}`).toBe(true);
        expect(await run.mediaPath(slot)).toBe(file);
        if (kind !== 'directory') expect(file.startsWith(temp + path.sep)).toBe(true);
      }
      await expect(run.mediaPath('measurement-r001-c001')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

      await run.close();
      await run.close();
      expect(await readdir(temp)).toEqual([]);
      await expect(run.mediaPath('warmup-000')).rejects.toMatchObject({ code: 'RUN_CLOSED' });
      if (kind === 'directory') expect((await stat(path.join(source, 'media', 'warmup-000.mp4'))).isFile()).toBe(true);
    }
  });

  it('summarizes site, run, plan and slot counts', async () => {
    const source = await writeDir(files, path.join(root, 'summary'));
    const run = await openVerifiedRun(source);
    const summary = summarizeRun(run);
    expect(summary).toMatchObject({
      site: 'H200',
      run_id: 30054883436,
      run_attempt: 1,
      head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
      plan: { plan_id: 'h3-cross-hardware-test-v1', plan_sha256: sha256(files.get('plan.json')!), cases: 2, repetitions: 2, warmup_runs: 1 },
      slots: { planned: 5, warmup: { ok: 1, failed: 0 }, measurement: { ok: 3, failed: 1 } },
      digest: { checked: false, archive_sha256: null },
    });
    await run.close();
  });

  it('checks the artifact digest beside a zip when there is one', async () => {
    const zip = await writeZip(zipItems(files), path.join(root, 'digest.zip'));
    const actual = sha256(await readFile(zip));
    let result = await verifyRun(zip);
    expect(result.ok && result.run.digest).toEqual({ checked: false, archive_sha256: actual, expected: null, file: null });
    for (const text of [`sha256:${actual}`, `${actual}\n`, `${actual}  digest.zip\n`, `sha256:${actual.toUpperCase()}\r\n`]) {
      await writeFile(`${zip}.sha256`, text);
      result = await verifyRun(zip, { requireDigest: true });
      expect(result.ok, text).toBe(true);
      expect(result.ok && result.run.digest).toEqual({ checked: true, archive_sha256: actual, expected: actual, file: `${zip}.sha256` });
      expect(result.ok && result.warnings).toEqual([]);
    }
    await writeFile(`${zip}.sha256`, `${actual}  other-name.zip\n`);
    result = await verifyRun(zip);
    expect(result.ok && result.warnings.map((w) => w.code)).toEqual(['DIGEST_NAME_MISMATCH']);
  });

  it('derives the links without doubling a trailing slash of server_url', async () => {
    const draft = validDraft();
    draft.ci.server_url = 'https://github.example.com/';
    const run = await openVerifiedRun(await writeDir(render(draft), path.join(root, 'ghes')));
    expect(run.links.run).toBe('https://github.example.com/example-org/video-serving-bench/actions/runs/30054883436/attempts/1');
    await run.close();
  });

  it('stops with ABORTED when its signal is aborted', async () => {
    const source = await writeDir(files, path.join(root, 'aborted'));
    const controller = new AbortController();
    controller.abort();
    await expect(verifyRun(source, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('openVerifiedRun throws RUN_INVALID carrying every problem', async () => {
    const draft = validDraft();
    draft.ci.hardware.gpus_participating = 9;
    draft.run.run_attempt = 2;
    const source = await writeDir(render(draft), path.join(root, 'invalid'));
    const error = await openVerifiedRun(source).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FidelityError);
    expect((error as FidelityError).code).toBe('RUN_INVALID');
    expect((error as FidelityError).problems.map((p) => p.code).sort()).toEqual(['CI_GPU_COUNT', 'RUN_ATTEMPT_MISMATCH']);
  });
});
