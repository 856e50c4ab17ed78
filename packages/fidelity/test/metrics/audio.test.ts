import { describe, expect, it } from 'vitest';
import { createAudioAccumulator } from '../../src/metrics/audio.js';
import { LagEstimator } from '../../src/metrics/lag.js';
import { AudioMetrics } from '../../src/schemas/measurement.js';
import { decodeAudio, goldenPair, PAIR_NAMES } from './oracle.js';

const f32 = (values: ArrayLike<number>) => Float32Array.from(values);

function measure(a: Float32Array[], b: Float32Array[], rate = 48000, chunk?: number) {
  const acc = createAudioAccumulator(rate, a.length);
  const n = a[0]!.length;
  const step = chunk ?? Math.max(n, 1);
  for (let i = 0; i < n; i += step) acc.push(a.map((x) => x.subarray(i, i + step)), b.map((x) => x.subarray(i, i + step)));
  return AudioMetrics.parse(acc.finish());
}

/** Deterministic pseudo-random float32 noise in [-0.5, 0.5). */
function noise(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

const sine = (n: number, freq: number, rate = 48000, amp = 0.5) => Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * freq * i) / rate));

describe('audio metrics on hand-computed vectors', () => {
  it('computes the textbook SNR, MAE, RMSE and max difference', () => {
    // noise energy 0.25 against signal energy 25: 20 dB
    const [c] = measure([f32([3, 4])], [f32([3, 4.5])]).channels;
    expect(c).toMatchObject({ samples: 2, max_abs_diff: 0.5, mae: 0.25, identical: false, snr_db_reason: null });
    expect(c!.snr_db).toBeCloseTo(20, 12);
    expect(c!.rmse).toBeCloseTo(Math.sqrt(0.125), 15);
  });

  it('gives rms_ratio 0.8 for a gain of 0.8, with SNR 10*log10(1/0.04)', () => {
    const a = f32(Array.from({ length: 4096 }, (_, i) => (i % 2 ? 1.25 : -1.25)));
    const b = f32(Array.from({ length: 4096 }, (_, i) => (i % 2 ? 1 : -1)));
    const [c] = measure([a], [b]).channels;
    expect(c!.rms_ratio).toBeCloseTo(0.8, 15);
    expect(c!.snr_db).toBeCloseTo(10 * Math.log10(1 / 0.04), 12);
    expect(c!.pearson).toBeCloseTo(1, 15);
    expect(c!.spectral_cosine).toBeCloseTo(1, 12);
  });

  it('flags a silenced channel as newly silent', () => {
    const a = sine(4800, 440);
    const m = measure([a, a], [a, new Float32Array(4800)]);
    expect(m.channels[0]).toMatchObject({ newly_silent: false, identical: true });
    expect(m.channels[1]).toMatchObject({ newly_silent: true, candidate_peak: 0, rms_ratio: 0, pearson: 0, spectral_cosine: 0, lag_estimate_samples: 0 });
    expect(m.channels[1]!.snr_db).toBeCloseTo(0, 12);
    expect(m.newly_silent_channels).toEqual([1]);
    expect(m.spectral_cosine).toBe(0);
    expect(m.rms_ratio).toBe(0);
    expect(m.rms_ratio_channel).toBe(1);
  });

  it('decides newly_silent on the RMS (<= 1e-4, version 2), not on the peak', () => {
    // Compared in float64 to the float32 samples: float32(1e-4) itself is just below 1e-4.
    const loud = f32(new Array(100).fill(1.0001e-4));
    const quiet = f32(new Array(100).fill(0.9999e-4));
    expect(measure([loud], [quiet]).channels[0]!.newly_silent).toBe(true);
    expect(measure([quiet], [f32(new Array(100).fill(0))]).channels[0]!.newly_silent).toBe(false);
    // A low-level channel whose peak is well above 1e-4 but whose RMS is below it: silent by the RMS
    // (version 1, on the peak, called it sound). One sample of 5e-4 among 99 zeros: RMS 5e-5.
    const spike = f32(Array.from({ length: 100 }, (_, i) => (i === 50 ? 5e-4 : 0)));
    expect(measure([sine(4800, 440, 48000, 0.1)], [f32([...spike, ...new Array(4700).fill(0)])]).channels[0]!.newly_silent).toBe(true);
    // And a baseline with a loud peak but RMS at most 1e-4 was never sound: not newly silent.
    expect(measure([spike], [f32(new Array(100).fill(0))]).channels[0]!.newly_silent).toBe(false);
  });

  it("windows with numpy's symmetric np.hanning(1024) (version 2), not the periodic form", () => {
    // One full window of noise against the same noise with a change at the window's last sample:
    // the symmetric window is 0 there (cos(pi) = -1), the periodic one is not, so only the periodic
    // form would see the change. With the symmetric window the spectra are equal: exactly 1.
    const a = noise(1024, 7);
    const b = a.slice();
    b[1023] = b[1023]! + 0.25;
    expect(measure([a], [b]).channels[0]!.spectral_cosine).toBe(1);
    // And the first sample too (w[0] = 0 in both forms); a change in the middle is seen.
    const c = a.slice();
    c[512] = c[512]! + 0.25;
    expect(measure([a], [c]).channels[0]!.spectral_cosine).toBeLessThan(1);
  });

  it('gives identical channels a null SNR with identical: true', () => {
    const a = noise(3000, 1);
    const m = measure([a], [a.slice()]);
    expect(m.channels[0]).toMatchObject({ snr_db: null, snr_db_reason: 'identical', identical: true, pearson: 1, rms_ratio: 1, spectral_cosine: 1, max_abs_diff: 0, lag_estimate_samples: 0 });
    expect(m.identical).toBe(true);
  });

  it('defines pearson for constant channels', () => {
    const c = (v: number) => f32(new Array(50).fill(v));
    expect(measure([c(0.5)], [c(0.5)]).channels[0]!.pearson).toBe(1);
    expect(measure([c(0.5)], [noise(50, 3)]).channels[0]!.pearson).toBe(0);
    expect(measure([noise(50, 3)], [c(0.5)]).channels[0]!.pearson).toBe(0);
    expect(measure([c(0.5)], [c(0.25)]).channels[0]!.pearson).toBe(0);
  });

  it('keeps pearson exact-ish with a large DC offset (no E[x^2]-E[x]^2 cancellation)', () => {
    const a = noise(20000, 5).map((x) => 0.9 + 1e-4 * x);
    const b = a.map((x, i) => x + (i % 2 ? 1e-6 : -1e-6));
    let ma = 0;
    let mb = 0;
    a.forEach((x, i) => {
      ma += x;
      mb += b[i]!;
    });
    ma /= a.length;
    mb /= a.length;
    let sab = 0;
    let saa = 0;
    let sbb = 0;
    a.forEach((x, i) => {
      sab += (x - ma) * (b[i]! - mb);
      saa += (x - ma) ** 2;
      sbb += (b[i]! - mb) ** 2;
    });
    expect(measure([a], [b]).channels[0]!.pearson).toBeCloseTo(sab / Math.sqrt(saa * sbb), 9);
  });

  it('defines rms_ratio and SNR for silent sides', () => {
    const z = new Float32Array(100);
    const m = measure([z, z], [noise(100, 2), z]);
    expect(m.channels[0]).toMatchObject({ rms_ratio: null, rms_ratio_reason: 'baseline_silent', snr_db: null, snr_db_reason: 'baseline_silent', newly_silent: false });
    expect(m.channels[1]).toMatchObject({ rms_ratio: 1, rms_ratio_reason: null, identical: true, spectral_cosine: 1, pearson: 1 });
    expect(m.rms_ratio).toBeNull();
    expect(m.rms_ratio_reason).toBe('baseline_silent');
  });

  it('takes the worst channel for the aggregate', () => {
    const a = noise(5000, 9);
    const m = measure([a, a, a], [a.map((x) => x * 0.9), a.map((x) => x * 1.05), a.slice()]);
    expect(m.rms_ratio).toBeCloseTo(0.9, 6);
    expect(m.rms_ratio_channel).toBe(0);
    expect(m.spectral_cosine).toBe(Math.min(...m.channels.map((c) => c.spectral_cosine)));
    expect(m.identical).toBe(false);
  });

  it('has spectral cosine 1 for a sine against itself and 0 against silence', () => {
    const s = sine(10000, 440);
    expect(measure([s], [s.slice()]).channels[0]!.spectral_cosine).toBe(1);
    expect(measure([s], [new Float32Array(10000)]).channels[0]!.spectral_cosine).toBe(0);
    expect(measure([new Float32Array(10000)], [new Float32Array(10000)]).channels[0]!.spectral_cosine).toBe(1);
    // Two far-apart tones share almost no spectrum.
    expect(measure([s], [sine(10000, 9000)]).channels[0]!.spectral_cosine).toBeLessThan(0.05);
  });

  it('counts the trailing partial window, so a change in the last samples shows', () => {
    const a = sine(2048 + 100, 440);
    const b = a.slice();
    for (let i = 2048; i < b.length; i++) b[i] = -b[i]! * 3 + 0.2;
    expect(measure([a], [b]).channels[0]!.spectral_cosine).toBeLessThan(1 - 1e-6);
  });

  it('does not depend on how the stream is chunked', () => {
    const a = [noise(70001, 11), sine(70001, 300)];
    const b = [noise(70001, 12).map((x, i) => x * 0.1 + a[0]![i]!), sine(70001, 301)];
    const whole = JSON.stringify(measure(a, b));
    for (const chunk of [1, 1000, 4096, 33333]) expect(JSON.stringify(measure(a, b, 48000, chunk))).toBe(whole);
  });

  it('refuses mismatched chunks and non-finite samples', () => {
    const acc = createAudioAccumulator(48000, 2);
    expect(() => acc.push([f32([1]), f32([1])], [f32([1]), f32([1, 2])])).toThrow(/chunk length/);
    expect(() => acc.push([f32([1])], [f32([1])])).toThrow(/2 Float32Array/);
    expect(() => acc.push([f32([NaN]), f32([1])], [f32([1]), f32([1])])).toThrow(/finite/);
    expect(() => createAudioAccumulator(0, 2)).toThrow(/sampleRate/);
  });
});

describe('lag_estimate_samples', () => {
  const delayed = (x: Float32Array, k: number) => Float32Array.from({ length: x.length }, (_, i) => (i - k >= 0 && i - k < x.length ? x[i - k]! : 0));

  it('finds a candidate delayed by k samples at +k, and an early one at -k', () => {
    const a = noise(20000, 21);
    expect(measure([a], [delayed(a, 37)]).channels[0]!.lag_estimate_samples).toBe(37);
    expect(measure([a], [delayed(a, -250)]).channels[0]!.lag_estimate_samples).toBe(-250);
  });

  it('finds the lag in a stream longer than one correlation block, pushed in small chunks', () => {
    const a = noise(300000, 22);
    expect(measure([a], [delayed(a, 1234)], 48000, 4000).channels[0]!.lag_estimate_samples).toBe(1234);
    expect(measure([a], [delayed(a, -23999)], 48000, 4000).channels[0]!.lag_estimate_samples).toBe(-23999);
  });

  it('an estimator on storage a finished one left (loud samples past its own end) reads only its own stream', () => {
    // The loud stream's FIFOs go on to the next channels of this thread (metrics/lag.ts); the quiet,
    // shorter streams would find +1234 if anything past their own samples were read.
    const loud = noise(300000, 25).map((x) => x * 1000);
    expect(measure([loud, loud], [delayed(loud, 1234), delayed(loud, 1234)], 48000, 4000).channels.map((c) => c.lag_estimate_samples)).toEqual([1234, 1234]);
    const quiet = noise(30000, 26).map((x) => x * 1e-3);
    expect(measure([quiet, quiet], [delayed(quiet, -37), delayed(quiet, 5)], 48000, 3000).channels.map((c) => c.lag_estimate_samples)).toEqual([-37, 5]);
    const estimator = new LagEstimator(4800);
    estimator.push(quiet, delayed(quiet, 12));
    expect([estimator.finish(), estimator.finish()]).toEqual([12, 12]);
  });

  it('a side of all zeros has no peak: 0 with lag_estimate_reason saying which side; absent when both sides have signal', () => {
    const a = noise(5000, 24);
    const z = new Float32Array(5000);
    const m = measure([a, z, z, a], [z, a, z, a.map((x) => x * 0.5)]);
    expect(m.channels.map((c) => [c.lag_estimate_samples, c.lag_estimate_reason])).toEqual([
      [0, 'candidate_silent'],
      [0, 'baseline_silent'],
      [0, 'both_silent'],
      [0, undefined],
    ]);
    // Absent, not undefined-valued: a channel with signal on both sides is the JSON it always was.
    expect(Object.keys(m.channels[3]!)).not.toContain('lag_estimate_reason');
    // One nonzero sample is a signal: estimated, with a peak.
    const one = new Float32Array(5000);
    one[10] = 0.5;
    expect(measure([a], [one]).channels[0]!.lag_estimate_reason).toBeUndefined();
  });

  it('searches only within +-0.5 s', () => {
    const a = noise(8000, 23);
    // 1000 Hz: the search stops at 500 samples, so a 700-sample delay is not found.
    expect(Math.abs(measure([a], [delayed(a, 700)], 1000).channels[0]!.lag_estimate_samples)).toBeLessThanOrEqual(500);
    expect(measure([a], [delayed(a, 400)], 1000).channels[0]!.lag_estimate_samples).toBe(400);
  });
});

describe('audio metrics against numpy (golden pairs)', () => {
  for (const name of PAIR_NAMES.filter((n) => goldenPair(n).audio)) {
    it(`matches every channel of the ${name} pair`, async () => {
      const golden = goldenPair(name);
      const g = golden.audio!;
      const channels = g.channels.length;
      const [a, b] = await Promise.all([decodeAudio(golden.baselineFile, channels), decodeAudio(golden.candidateFile, channels)]);
      const m = measure(a, b, g.sample_rate, 1024);
      m.channels.forEach((c, i) => {
        const o = g.channels[i]!;
        expect(c).toMatchObject({
          samples: o.samples,
          newly_silent: o.newly_silent,
          identical: o.identical,
          lag_estimate_samples: o.lag_estimate_samples,
          max_abs_diff: o.max_abs_diff,
          baseline_peak: o.baseline_peak,
          candidate_peak: o.candidate_peak,
        });
        for (const key of ['mae', 'rmse', 'snr_db', 'pearson', 'rms_ratio', 'spectral_cosine'] as const) {
          const expected = o[key];
          if (expected === null) expect(c[key]).toBeNull();
          else expect(Math.abs((c[key] as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
        }
      });
    });
  }
});
