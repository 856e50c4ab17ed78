/**
 * Nothing is decoded twice in any metric set (issue #42): compare keeps the stills' frame and the
 * audio head from the measuring decode (pool/frame-capture.ts) in the `inferencex` set too, which
 * charts no series (its stills show frame 0, held as the stand-in), so it starts as many ffmpeg and
 * ffprobe runs as the `default` set, and none of them extracts a still (media/frames.ts). ffmpeg and
 * ffprobe are logging wrappers around the real ones, so every run is counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { compare } from '../../src/compare.js';
import { loggingTools as loggingToolsIn } from '../media/wrapper.js';

const RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-decode-once-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const log = path.join(tmp, 'tools.log');

/**
 * ffmpeg and ffprobe that log each run but the `-version` checks (test/media/wrapper.ts), in a folder of
 * their own per `name`: another ffprobe binary, so that no probe kept from an earlier compare of the same
 * bytes in this process (media/probe-cache.ts) stands in for this one's.
 */
const loggingTools = (name: string): { ffmpegPath: string; ffprobePath: string } => loggingToolsIn(path.join(tmp, `bin-${name}`), log);

describe('compare decodes nothing twice, whatever the metric set', () => {
  it('starts as many ffmpeg and ffprobe runs with --metrics inferencex as with default, and extracts no still', async () => {
    const runs: Record<string, string[]> = {};
    for (const metrics of ['default', 'inferencex'] as const) {
      const ffmpeg = loggingTools(metrics);
      writeFileSync(log, '');
      const result = await compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200')], { out: path.join(tmp, metrics), threads: 2, metrics, ffmpeg });
      expect(result.report.comparisons[0]!.pairs.filter((p) => p.files['baseline_worst_webp']).length, metrics).toBeGreaterThan(1);
      runs[metrics] = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    }
    const count = (lines: string[], tool: string): number => lines.filter((l) => l.startsWith(`${tool} `)).length;
    for (const tool of ['ffmpeg', 'ffprobe']) expect(count(runs['inferencex']!, tool), tool).toBe(count(runs['default']!, tool));
    // The stills' extraction is the one decode cut with -frames:v; its pixel format's probe the one with stream=pix_fmt.
    for (const lines of Object.values(runs)) expect(lines.filter((l) => l.includes('-frames:v') || l.includes('stream=pix_fmt'))).toEqual([]);
  }, 300_000);
});
