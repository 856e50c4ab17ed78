/**
 * Media that break the plan are refused, end to end through the library:
 * runs generated with a plan that says 1344x768, 192 frames and mono audio
 * over clips of 112x64, 12 frames and stereo (the generator's
 * `planOverride`, as a newcomer archived their own clips under the formal
 * plan). Both sides agree with each other, so only the plan check can see
 * it: every pair is invalid with MEDIA_PLAN_MISMATCH, on both sides, with
 * each field; verify's media check warns about every slot; the pages show
 * the plan's spec and the media's, in English and Chinese.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVerifiedRun } from '../src/archive/verify.js';
import { verifyBundle } from '../src/bundle-check/verify.js';
import { compare } from '../src/compare.js';
import type { CompareResult } from '../src/comparison/types.js';
import { checkRunMedia } from '../src/archive/run-media.js';
import { generateRuns, type GeneratedRuns } from '../src/synth/index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-compare-plan-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let runs: GeneratedRuns;
let result: CompareResult;
const dir = (site: string) => runs.runs.find((r) => r.site === site)!.dir;

beforeAll(async () => {
  runs = await generateRuns({
    outDir: path.join(tmp, 'runs'),
    sites: ['H200', 'B200'],
    cases: 3,
    planOverride: { video: { width: 1344, height: 768, frames: 192 }, audio: { channels: 1 } },
  });
  result = await compare(dir('H200'), [dir('B200')], { out: path.join(tmp, 'bundle'), threads: 2 });
}, 300_000);

describe('media that break the plan', () => {
  it('the generator writes the plan asked for and expects every slot invalid', () => {
    const plan = JSON.parse(readFileSync(path.join(dir('B200'), 'plan.json'), 'utf8'));
    expect(plan.video).toEqual({ width: 1344, height: 768, fps: 12, frames: 192 });
    expect(plan.audio).toEqual({ sample_rate: 32000, channels: 1 });
    expect(runs.slots.map((s) => s.expected)).toEqual(['invalid', 'invalid', 'invalid']);
  });

  it('are refused: every pair invalid with MEDIA_PLAN_MISMATCH on both sides, each field with both values', () => {
    const [cmp] = result.report.comparisons;
    expect(cmp!.summary).toEqual({ planned: 3, valid_pairs: 0, passed: 0, failed: 0, invalid: 3 });
    for (const pair of cmp!.pairs) {
      expect(pair.reasons).toEqual(['MEDIA_PLAN_MISMATCH']);
      expect(pair.video).toBeNull();
      const [reason] = pair.reason_details;
      expect(reason!.side).toBe('both');
      expect(reason!.message).toBe("Both sides' media differ alike from the plan: width 112 px (plan 1344 px), height 64 px (plan 768 px), frames 12 (plan 192), channels 2 (plan 1)");
      expect(reason!.plan_mismatches).toEqual(
        (['baseline', 'candidate'] as const).flatMap((side) => [
          { side, field: 'width', plan: 1344, media: 112 },
          { side, field: 'height', plan: 768, media: 64 },
          { side, field: 'frames', plan: 192, media: 12 },
          { side, field: 'channels', plan: 1, media: 2 },
        ]),
      );
      expect(pair.checks.every((c) => c.outcome === 'inconclusive')).toBe(true);
    }
    expect(result.report.runs.map((r) => r.plan_spec)).toEqual([
      { video: { width: 1344, height: 768, fps: 12, frames: 192 }, audio: { sample_rate: 32000, channels: 1 } },
      { video: { width: 1344, height: 768, fps: 12, frames: 192 }, audio: { sample_rate: 32000, channels: 1 } },
    ]);
  });

  it('verify warns about every ok slot of each run, which stays valid', async () => {
    const run = await openVerifiedRun(dir('B200'));
    try {
      const media = await checkRunMedia(run);
      expect(media.slots.map((s) => s.outcome)).toEqual(['mismatch', 'mismatch', 'mismatch', 'mismatch']);
      expect(media.warnings.map((w) => w.code)).toEqual(Array(4).fill('MEDIA_PLAN_MISMATCH'));
    } finally {
      await run.close();
    }
  });

  it("the pages show the plan's spec, and for each pair the plan next to each side's media, in English and Chinese", async () => {
    expect((await verifyBundle(path.join(tmp, 'bundle'))).ok).toBe(true);
    const en = readFileSync(path.join(tmp, 'bundle', 'index.html'), 'utf8');
    const zh = readFileSync(path.join(tmp, 'bundle', 'index.zh.html'), 'utf8');
    expect(en).toContain('<br/>1344×768, 12 fps, 192 frames; 32000 Hz, 1 channel</dd>');
    expect(zh).toContain('<br/>1344×768，12 帧/秒，192 帧；32000 Hz，1 声道</dd>');
    expect(en).toContain('<p>The media differ from the plan: the pair was not measured.</p>');
    expect(en).toContain('<tr><th scope="row">width (px)</th><td class="n">1344</td><td class="n"><mark>112</mark></td><td class="n"><mark>112</mark></td></tr>');
    expect(en).toContain('<tr><th scope="row">audio channels</th><td class="n">1</td><td class="n"><mark>2</mark></td><td class="n"><mark>2</mark></td></tr>');
    expect(zh).toContain('<p>媒体与计划不符：此配对未测量。</p>');
    expect(zh).toContain('<tr><th scope="row">宽（像素）</th><td class="n">1344</td><td class="n"><mark>112</mark></td><td class="n"><mark>112</mark></td></tr>');
    expect(zh).toContain('媒体与计划的视频／音频规格不符');
  });
});
