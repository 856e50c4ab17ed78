/**
 * checkRunMedia (archive/run-media.ts), what `fidelity verify` reports about a
 * valid run's media: every ok slot probed against the plan, on the committed
 * runs (H200 as planned; B200 with a shorter stream and a missing audio
 * track), a run with one slot's clip swapped for another size (folder and
 * zip), media ffprobe cannot read, and no usable ffprobe: always warnings,
 * never a refusal.
 */
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openVerifiedRun } from '../../src/archive/verify.js';
import type { VerifiedRun } from '../../src/archive/types.js';
import { checkRunMedia } from '../../src/archive/run-media.js';
import { render, validDraft, writeDir } from './fixture.js';
import { reseal, zipRun } from '../../../../test/e2e/helpers.js';
import { realFfmpeg, realFfprobe } from '../media/wrapper.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const RUNS = path.join(ROOT, 'fixtures', 'runs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-run-media-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function withRun<T>(source: string, work: (run: VerifiedRun) => Promise<T>): Promise<T> {
  const run = await openVerifiedRun(source);
  try {
    return await work(run);
  } finally {
    await run.close();
  }
}

describe('checkRunMedia', () => {
  it('finds every ok slot of the committed H200 run as planned, with no warning', async () => {
    const media = await withRun(path.join(RUNS, 'h200'), (run) => checkRunMedia(run, { concurrency: 2 }));
    expect(media.checked).toBe(true);
    expect(media.plan).toEqual({ video: { width: 112, height: 64, fps: 12, frames: 12 }, audio: { sample_rate: 32000, channels: 2 } });
    expect(media.slots).toHaveLength(11);
    expect(media.slots[0]).toEqual({ slot_id: 'warmup-000', kind: 'warmup', media: 'media/warmup-000.mp4', outcome: 'conforms' });
    expect(media.slots.every((s) => s.outcome === 'conforms')).toBe(true);
    expect(media.warnings).toEqual([]);
    expect(media.ffprobe?.version).toMatch(/^ffprobe version/);
  });

  it('reads every ok slot\'s MP4 in the process: the one ffprobe run is its `-version` check', async () => {
    // A logging ffprobe (and the real ffmpeg beside it): every run's arguments, one line each.
    const dir = path.join(tmp, 'logging');
    mkdirSync(dir, { recursive: true });
    const log = path.join(dir, 'ffprobe.log');
    writeFileSync(log, '');
    writeFileSync(path.join(dir, 'ffprobe'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realFfprobe()}' "$@"\n`);
    chmodSync(path.join(dir, 'ffprobe'), 0o755);
    const media = await withRun(path.join(RUNS, 'h200'), (run) => checkRunMedia(run, { ffmpeg: { ffmpegPath: realFfmpeg(), ffprobePath: path.join(dir, 'ffprobe') } }));
    expect(media.slots).toHaveLength(11);
    const runs = readFileSync(log, 'utf8').trim().split('\n');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toContain('-version');
    expect(media.slots.every((s) => s.outcome === 'conforms')).toBe(true);
  });

  it('warns about the B200 slots that break the plan, like its failed request, naming the field and both values', async () => {
    const media = await withRun(path.join(RUNS, 'b200'), (run) => checkRunMedia(run));
    // The failed request has no media: 10 ok slots of 11.
    expect(media.slots).toHaveLength(10);
    expect(media.slots.filter((s) => s.outcome !== 'conforms')).toEqual([
      { slot_id: 'measurement-r000-c007', kind: 'measurement', media: 'media/measurement-r000-c007.mp4', outcome: 'mismatch', mismatches: [{ field: 'frames', plan: 12, media: 10 }] },
      {
        slot_id: 'measurement-r000-c008', kind: 'measurement', media: 'media/measurement-r000-c008.mp4', outcome: 'mismatch',
        mismatches: [{ field: 'sample_rate', plan: 32000, media: null }, { field: 'channels', plan: 2, media: null }],
      },
    ]);
    expect(media.warnings).toEqual([
      {
        code: 'MEDIA_PLAN_MISMATCH',
        message: 'slot measurement-r000-c007: its media differ from the plan (112x64, 12 fps, 12 frames; 32000 Hz, 2 channels): frames 10 (plan 12)',
        where: { file: 'media/measurement-r000-c007.mp4' },
      },
      {
        code: 'MEDIA_PLAN_MISMATCH',
        message:
          'slot measurement-r000-c008: its media differ from the plan (112x64, 12 fps, 12 frames; 32000 Hz, 2 channels): sample_rate none (plan 32000 Hz), channels none (plan 2)',
        where: { file: 'media/measurement-r000-c008.mp4' },
      },
    ]);
  });

  it('finds one slot whose clip was swapped for another size, in a folder and in a zip', async () => {
    const dir = path.join(tmp, 'swapped');
    cpSync(path.join(RUNS, 'h200'), dir, { recursive: true });
    // A 128x72 clip of 12 frames, no audio, in place of a 112x64 one with audio; resealed, so the run is valid.
    copyFileSync(path.join(ROOT, 'fixtures', 'golden', 'media', 'blur-a.mp4'), path.join(dir, 'media', 'measurement-r000-c001.mp4'));
    reseal(dir);
    const zip = path.join(tmp, 'swapped.zip');
    await zipRun(dir, zip, 'h3-video-30054883436-1');
    for (const source of [dir, zip]) {
      const media = await withRun(source, (run) => checkRunMedia(run));
      const off = media.slots.filter((s) => s.outcome !== 'conforms');
      expect(off.map((s) => [s.slot_id, s.mismatches!.map((x) => `${x.field} ${x.media}`)]), source).toEqual([
        ['measurement-r000-c001', ['width 128', 'height 72', 'fps 24', 'sample_rate null', 'channels null']],
      ]);
      expect(media.warnings.map((w) => w.code)).toEqual(['MEDIA_PLAN_MISMATCH']);
    }
  });

  it('warns with the probe\'s own code about media ffprobe cannot read', async () => {
    const dir = await writeDir(render(validDraft()), path.join(tmp, 'fake'));
    const media = await withRun(dir, (run) => checkRunMedia(run));
    expect(media.checked).toBe(true);
    expect(media.slots.map((s) => [s.slot_id, s.outcome, s.code])).toEqual([
      ['warmup-000', 'unreadable', 'UNDECODABLE'],
      ['measurement-r000-c000', 'unreadable', 'UNDECODABLE'],
      ['measurement-r000-c001', 'unreadable', 'UNDECODABLE'],
      ['measurement-r001-c000', 'unreadable', 'UNDECODABLE'],
    ]);
    expect(media.warnings).toHaveLength(4);
    expect(media.warnings[0]!.message).toMatch(/^slot warmup-000: ffprobe cannot read its media, so they were not checked against the plan: /);
  });

  it('without a usable ffprobe checks nothing and says so in a warning; a cancelled check throws ABORTED', async () => {
    const media = await withRun(path.join(RUNS, 'h200'), (run) => checkRunMedia(run, { ffmpeg: { ffmpegPath: path.join(tmp, 'no', 'ffmpeg'), ffprobePath: path.join(tmp, 'no', 'ffprobe') } }));
    expect(media).toMatchObject({ checked: false, ffprobe: null, slots: [] });
    expect(media.warnings).toHaveLength(1);
    expect(['FFMPEG_NOT_FOUND', 'FFMPEG_BROKEN']).toContain(media.warnings[0]!.code);
    expect(media.warnings[0]!.message).toMatch(/^the media were not checked against the plan \(112x64, 12 fps, 12 frames; 32000 Hz, 2 channels\): /);
    const controller = new AbortController();
    controller.abort();
    await expect(withRun(path.join(RUNS, 'h200'), (run) => checkRunMedia(run, { signal: controller.signal }))).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
