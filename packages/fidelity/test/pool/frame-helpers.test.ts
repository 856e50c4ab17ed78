import { describe, expect, it } from 'vitest';
import type { FrameRecords } from '../../src/media/video-decoder.js';
import type { FrameGeometry } from '../../src/metrics/frame.js';
import { METRIC_SETS } from '../../src/metrics/names.js';
import { createOrderedSeries, measureFrameValues } from '../../src/metrics/video.js';
import type { FrameValues } from '../../src/metrics/video.js';
import type { RgbConversion } from '../../src/metrics/rgb24.js';
import { openFrameHelpers } from '../../src/pool/frame-helpers.js';
import { frameFromRecords } from '../../src/media/video-decoder.js';

const geometry: FrameGeometry = { width: 64, height: 48, chromaWidth: 32, chromaHeight: 24 };
const planesBytes = 64 * 48 + 2 * 32 * 24;

/** A frame as the decoder hands it out: two records, each the whole of its own buffer (rgb24 empty unless ffmpeg converts). */
function records(seed: number, withRgb = false): FrameRecords {
  const planes = new Uint8Array(planesBytes);
  const rgb = new Uint8Array(withRgb ? 64 * 48 * 3 : 0);
  for (let i = 0; i < planes.length; i++) planes[i] = (i * 7 + seed * 13) % 251;
  for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 5 + seed * 3) % 241;
  return { planes, rgb };
}

const CONVERSIONS: { name: string; rgb: RgbConversion }[] = [
  { name: 'rgb24 converted in the helpers', rgb: { by: 'fidelity', matrix: 'bt601', range: 'limited' } },
  { name: 'rgb24 carried from ffmpeg', rgb: { by: 'ffmpeg', matrix: 'bt601', range: 'limited' } },
];

describe('video helper threads', () => {
  it.each(CONVERSIONS)('computes each frame as this thread would, and hands every buffer back whole ($name)', async ({ rgb }) => {
    const carried = rgb.by === 'ffmpeg';
    const rgbBytes = carried ? 64 * 48 * 3 : 0;
    const frames = Array.from({ length: 6 }, (_, i) => [records(i, carried), records(i + 100, carried)] as const);
    // What this thread computes, from copies (the originals move to the helpers).
    const series = createOrderedSeries(geometry, 'all', { rgb });
    const expected = frames.map(([a, b]) => {
      const fa = frameFromRecords(geometry, { planes: a.planes.slice(), rgb: a.rgb.slice() });
      const fb = frameFromRecords(geometry, { planes: b.planes.slice(), rgb: b.rgb.slice() });
      return { ordered: series.next(fa, fb), values: measureFrameValues(fa, fb, geometry, 'all', { rgb }) };
    });
    const values = new Map<number, FrameValues>();
    const ordered: [number, FrameValues][] = [];
    const returned: FrameRecords[] = [];
    const helpers = openFrameHelpers(geometry, METRIC_SETS.all, 2, {
      onValues(index, v, a, b) {
        values.set(index, v);
        returned.push(a, b);
      },
      onOrdered: (index, ssim) => ordered.push([index, ssim]),
    }, rgb);
    try {
      for (const [i, [a, b]] of frames.entries()) {
        await helpers.submit(i, a, b);
        // Moved, not copied: the sender's views are detached.
        expect(a.planes.byteLength).toBe(0);
      }
      await helpers.drain();
    } finally {
      await helpers.close();
    }
    expect([...values.keys()].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const [i, e] of expected.entries()) expect(values.get(i)).toEqual(e.values);
    // ssim_ffmpeg comes back in frame order, with the values of a series fed in order.
    expect(ordered.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(ordered.map(([, s]) => s)).toEqual(expected.map((e) => e.ordered));
    expect(returned).toHaveLength(12);
    expect(returned.every((r) => r.planes.byteLength === planesBytes && r.rgb.byteLength === rgbBytes)).toBe(true);
  });

  it('turns a failure inside a helper into a rejected submit or drain, with the helper\'s code', async () => {
    // Frames too small for the 11x11 Gaussian window: the helper's measureFrameValues refuses them.
    const tiny: FrameGeometry = { width: 8, height: 8, chromaWidth: 4, chromaHeight: 4 };
    const helpers = openFrameHelpers(tiny, METRIC_SETS.default, 1, { onValues: () => undefined, onOrdered: () => undefined });
    try {
      const make = (): FrameRecords => ({ planes: new Uint8Array(8 * 8 + 2 * 16), rgb: new Uint8Array(0) });
      const attempt = (async () => {
        for (let i = 0; i < 8; i++) await helpers.submit(i, make(), make());
        await helpers.drain();
      })();
      await expect(attempt).rejects.toMatchObject({ name: 'FidelityError', code: 'FRAME_TOO_SMALL' });
    } finally {
      await helpers.close();
    }
  });

  it('refuses to move a record that is only part of its buffer', async () => {
    const helpers = openFrameHelpers(geometry, METRIC_SETS.default, 1, { onValues: () => undefined, onOrdered: () => undefined });
    try {
      const whole = records(1);
      const part = { planes: new Uint8Array(planesBytes + 16).subarray(16), rgb: whole.rgb };
      await expect(helpers.submit(0, part, records(2))).rejects.toMatchObject({ code: 'INTERNAL' });
    } finally {
      await helpers.close();
    }
  });
});
