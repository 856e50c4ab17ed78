/**
 * The SSIM thread (pool/ssim-helper.ts) on its own: each value comes back by
 * frame index and equals ssimGaussian in this thread, and a failure inside
 * the thread rejects the next submit or drain with the thread's own code.
 */
import { describe, expect, it } from 'vitest';
import { ssimGaussian } from '../../src/metrics/ssim-gaussian.js';
import { openSsimHelper } from '../../src/pool/ssim-helper.js';

const W = 32;
const H = 24;

function plane(seed: number): Uint8Array {
  const p = new Uint8Array(W * H);
  let x = seed * 2654435761;
  for (let i = 0; i < p.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    p[i] = x >>> 24;
  }
  return p;
}

describe('openSsimHelper', () => {
  it("gives each frame's Gaussian SSIM by index, the same bits as this thread", async () => {
    const values = new Map<number, number>();
    const helper = openSsimHelper(W, H, (index, value) => values.set(index, value));
    const frames = Array.from({ length: 6 }, (_, i) => [plane(i + 1), plane(i + 100)] as const);
    try {
      for (const [i, [a, b]] of frames.entries()) await helper.submit(i, a, b);
      await helper.drain();
    } finally {
      await helper.close();
    }
    expect([...values.keys()].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5]);
    // The planes were copied before they went: the caller's stay as they were, and give the same values here.
    for (const [i, [a, b]] of frames.entries()) expect(values.get(i)).toBe(ssimGaussian(a, b, W, H));
  });

  it("turns a failure inside the thread into a rejected submit or drain, with the thread's code", async () => {
    // Planes too small for the 11x11 Gaussian window: the thread's ssimGaussian refuses them.
    const helper = openSsimHelper(8, 8, () => undefined);
    try {
      const attempt = (async () => {
        for (let i = 0; i < 6; i++) await helper.submit(i, new Uint8Array(64), new Uint8Array(64).fill(9));
        await helper.drain();
      })();
      await expect(attempt).rejects.toMatchObject({ name: 'FidelityError', code: 'FRAME_TOO_SMALL' });
    } finally {
      await helper.close();
    }
  });
});
