/**
 * Each file is probed once per command (comparison/measure.ts): a baseline clip in two pairs (one
 * per candidate) is probed by the first and its probe handed to the second, keyed by the sealed
 * SHA-256; the outcomes are the ones two probes give. ffprobe is a logging wrapper around the real
 * one, so every probe run is counted per file. The library reads MP4s itself (media/mp4-reader.ts):
 * the clips are remuxed to Matroska here, which ffprobe reads, so that each probe is a counted run.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { measureMediaJobs, type MediaJob } from '../../src/comparison/measure.js';
import { sha256File } from '../../src/hash.js';
import { realFfmpeg, realFfprobe } from '../media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-probe-once-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An ffprobe that logs each run's last argument (the file) and runs the real one. */
function loggingFfprobe(): { ffprobePath: string; log: string } {
  const log = path.join(tmp, 'ffprobe.log');
  const ffprobePath = path.join(tmp, 'ffprobe');
  writeFileSync(log, '');
  writeFileSync(ffprobePath, `#!/bin/sh\nfor last; do :; done\necho "$last" >> '${log}'\nexec '${realFfprobe()}' "$@"\n`);
  chmodSync(ffprobePath, 0o755);
  return { ffprobePath, log };
}

function probesOf(log: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (line.endsWith('.mkv')) counts.set(path.relative(tmp, line), (counts.get(path.relative(tmp, line)) ?? 0) + 1);
  }
  return counts;
}

/** A fixture run's clip remuxed to Matroska under `tmp`, at the same relative path. */
function asMatroska(run: string, slot: string): string {
  const out = path.join(tmp, run, 'media', `${slot}.mkv`);
  mkdirSync(path.dirname(out), { recursive: true });
  execFileSync(realFfmpeg(), ['-nostdin', '-v', 'error', '-y', '-i', path.join(RUNS, run, 'media', `${slot}.mp4`), '-c', 'copy', out]);
  return out;
}

describe('measuring probes each file once per command', () => {
  it('hands a shared baseline clip\'s probe to its second pair, with the outcomes two probes give', async () => {
    const slot = 'measurement-r000-c001';
    const files = { h200: asMatroska('h200', slot), b200: asMatroska('b200', slot), h100: asMatroska('h100', slot) };
    const sha = { h200: await sha256File(files.h200), b200: await sha256File(files.b200), h100: await sha256File(files.h100) };
    const jobsOf = (sealed: boolean): MediaJob[] =>
      (['b200', 'h100'] as const).map((c) => ({
        id: c,
        baseline: async () => files.h200,
        candidate: async () => files[c],
        ...(sealed ? { sha256: { baseline: sha.h200, candidate: sha[c] } } : {}),
      }));
    const { ffprobePath, log } = loggingFfprobe();
    const ffmpeg = { ffmpegPath: realFfmpeg(), ffprobePath };
    const shared = await measureMediaJobs(jobsOf(true), 12, { threads: 1, ffmpeg, metrics: 'inferencex' });
    expect(probesOf(log)).toEqual(new Map([[`h200/media/${slot}.mkv`, 1], [`b200/media/${slot}.mkv`, 1], [`h100/media/${slot}.mkv`, 1]]));
    writeFileSync(log, '');
    // Without the sealed SHA-256 nothing is known to be shared: every pair probes both of its files.
    const apart = await measureMediaJobs(jobsOf(false), 12, { threads: 1, ffmpeg, metrics: 'inferencex' });
    expect(probesOf(log).get(`h200/media/${slot}.mkv`)).toBe(2);
    expect(shared).toEqual(apart);
  });
});
