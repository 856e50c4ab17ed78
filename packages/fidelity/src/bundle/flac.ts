/**
 * A small FLAC encoder for 16-bit PCM (RFC 9639), for the bundle's difference
 * audio. Lossless and about 3-10x smaller than a WAV of a difference signal,
 * and every browser plays it in <audio>.
 *
 * Our own code rather than ffmpeg or libFLAC so that the same samples give
 * the same bytes on every machine and version. ffmpeg's bitexact FLAC encoder
 * does not: its LPC analysis sums doubles in another order in its SSE2 code
 * than in its C code, and the same build writes other bytes with and without
 * SSE2 (bench/flac-ffmpeg.mjs; docs/report.md). Each choice below (subframe
 * type, predictor and its order, Rice partitions and parameters, stereo mode)
 * is the one with the fewest bits by exact count, ties going to the first
 * tried. Everything is integer arithmetic except the LPC analysis, which uses
 * only exactly-specified double operations (see lpcCoefficients).
 */
import { createHash } from 'node:crypto';
import { invalidParameter } from '../errors.js';

/** Samples per frame (the last frame holds what is left). libFLAC's default. */
export const FLAC_BLOCK_SIZE = 4096;
const BITS_PER_SAMPLE = 16;
/** STREAMINFO carries the sample rate in 20 bits. */
const MAX_SAMPLE_RATE = 0xfffff;
/** Rice partition orders tried: down to 4096 / 2^8 = 16 samples a partition. */
const MAX_PARTITION_ORDER = 8;
/** Rice parameters with the 4-bit coding method (15 is its escape code) and the 5-bit one (31 is). */
const MAX_RICE4 = 14;
const MAX_RICE5 = 30;

/**
 * 2^k by doubling: exact for every k here, where the ** operator is only "implementation-approximated"
 * by ECMAScript. Every power of two below uses this, so the bytes cannot depend on the engine.
 */
const POW2: readonly number[] = Array.from({ length: 54 }, (_, k) => {
  let v = 1;
  for (let i = 0; i < k; i++) v *= 2;
  return v;
});
function pow2(k: number): number {
  return POW2[k]!;
}

/** Frame header codes (RFC 9639 9.1.2) of the sample rates that have one. */
const RATE_CODES: ReadonlyMap<number, number> = new Map([
  [88200, 1], [176400, 2], [192000, 3], [8000, 4], [16000, 5], [22050, 6],
  [24000, 7], [32000, 8], [44100, 9], [48000, 10], [96000, 11],
]);

// Stereo channel assignments (frame header); 0-7 are independent channels (count - 1).
const LEFT_SIDE = 8;
const SIDE_RIGHT = 9;
const MID_SIDE = 10;

class BitWriter {
  private buf = new Uint8Array(1 << 16);
  /** Bytes completed. */
  private len = 0;
  /** Pending bits, at most 7 between calls, in the low `nacc` bits of acc. */
  private acc = 0;
  private nacc = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** The low `n` bits (n ≤ 32) of `value`, most significant first. */
  bits(value: number, n: number): void {
    if (n === 0) return;
    if (n > 24) {
      this.bits(Math.floor(value / 65536), n - 16);
      this.bits(value & 0xffff, 16);
      return;
    }
    this.ensure(4);
    this.acc = ((this.acc << n) | (value & ((1 << n) - 1))) >>> 0;
    this.nacc += n;
    while (this.nacc >= 8) {
      this.nacc -= 8;
      this.buf[this.len++] = (this.acc >>> this.nacc) & 0xff;
    }
    this.acc &= (1 << this.nacc) - 1;
  }

  /** Up to 53 bits, for the 36-bit sample count. */
  wide(value: number, n: number): void {
    while (n > 24) {
      n -= 24;
      this.bits(Math.floor(value / pow2(n)) & 0xffffff, 24);
    }
    this.bits(value % pow2(n), n);
  }

  signed(value: number, n: number): void {
    this.bits(value < 0 ? value + (1 << n) : value, n);
  }

  /** `q` zero bits and a one. */
  unary(q: number): void {
    while (q >= 24) {
      this.bits(0, 24);
      q -= 24;
    }
    this.bits(1, q + 1);
  }

  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    if (this.nacc !== 0) throw new Error('BitWriter.bytes: not byte-aligned');
    this.buf.set(data, this.len);
    this.len += data.length;
  }

  /** Zero bits up to the next byte boundary. */
  align(): void {
    if (this.nacc > 0) this.bits(0, 8 - this.nacc);
  }

  get byteLength(): number {
    return this.len;
  }

  /** Bytes [from, to) written so far (aligned). */
  view(from: number, to = this.len): Uint8Array {
    return this.buf.subarray(from, to);
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const CRC8 = new Uint8Array(256);
const CRC16 = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c8 = i;
  let c16 = i << 8;
  for (let b = 0; b < 8; b++) {
    c8 = c8 & 0x80 ? ((c8 << 1) ^ 0x07) & 0xff : (c8 << 1) & 0xff;
    c16 = c16 & 0x8000 ? ((c16 << 1) ^ 0x8005) & 0xffff : (c16 << 1) & 0xffff;
  }
  CRC8[i] = c8;
  CRC16[i] = c16;
}
function crc8(data: Uint8Array): number {
  let c = 0;
  for (const b of data) c = CRC8[c ^ b]!;
  return c;
}
function crc16(data: Uint8Array): number {
  let c = 0;
  for (const b of data) c = ((c << 8) & 0xffff) ^ CRC16[(c >> 8) ^ b]!;
  return c;
}

/** Residual of the fixed predictor of `order` (RFC 9639 9.2.5) at sample i ≥ order, written at the start of `into`. */
function fixedResiduals(x: Int32Array, order: number, into: Int32Array): Int32Array {
  const n = x.length;
  const r = into.subarray(0, n - order);
  // One loop per order: a switch inside the loop would be taken for every sample.
  switch (order) {
    case 0:
      for (let i = 0; i < n; i++) r[i] = x[i]!;
      break;
    case 1:
      for (let i = 1; i < n; i++) r[i - 1] = x[i]! - x[i - 1]!;
      break;
    case 2:
      for (let i = 2; i < n; i++) r[i - 2] = x[i]! - (2 * x[i - 1]! - x[i - 2]!);
      break;
    case 3:
      for (let i = 3; i < n; i++) r[i - 3] = x[i]! - (3 * x[i - 1]! - 3 * x[i - 2]! + x[i - 3]!);
      break;
    default:
      for (let i = 4; i < n; i++) r[i - 4] = x[i]! - (4 * x[i - 1]! - 6 * x[i - 2]! + 4 * x[i - 3]! - x[i - 4]!);
  }
  return r;
}

interface RicePlan {
  bits: number;
  /** 0: 4-bit parameters, 1: 5-bit. */
  method: number;
  order: number;
  params: number[];
}

/** Per-partition sums of {@link planRice}, reused from call to call: fresh ones are about 2 MB of new memory a second of stereo. */
const RICE_K = MAX_RICE5 + 1;
const riceSums = new Float64Array((1 << MAX_PARTITION_ORDER) * RICE_K);
const riceCounts = new Float64Array(1 << MAX_PARTITION_ORDER);

/**
 * The best parameter of one partition of `count` folded residuals whose Σ(u >> k) are
 * sums[at + k]: the smallest k of the fewest bits count·(k+1) + Σ(u >> k), k ≤ maxK. The cost
 * is convex in k (its step count − Σ⌈(u >> k) / 2⌉ never decreases), so the search stops at the
 * first k that is not cheaper: the same k as trying every one.
 */
function bestParameter(sums: Float64Array, at: number, count: number, maxK: number): { k: number; bits: number } {
  let k = 0;
  let bits = count + sums[at]!;
  for (let next = 1; next <= maxK; next++) {
    const b = count * (next + 1) + sums[at + next]!;
    if (b >= bits) break;
    bits = b;
    k = next;
  }
  return { k, bits };
}

/**
 * The cheapest partitioned Rice coding of a residual by exact bit count: for each partition
 * order the block allows and each parameter, the cost of a partition of n folded residuals u is
 * n·(k+1) + Σ(u >> k). The sums of the smallest partitions are added up for the larger ones.
 * The 5-bit method is tried only where a partition's best 4-bit parameter is the largest (14):
 * elsewhere it finds the same parameters at one more bit a partition, and ties go to the first.
 */
function planRice(res: Int32Array, blockSize: number, predictorOrder: number): RicePlan {
  let maxOrder = 0;
  while (
    maxOrder < MAX_PARTITION_ORDER &&
    blockSize % (1 << (maxOrder + 1)) === 0 &&
    blockSize >> (maxOrder + 1) > predictorOrder
  ) maxOrder++;
  const parts = 1 << maxOrder;
  const partLen = blockSize >> maxOrder;
  const K = RICE_K;
  // sums[p*K + k] = Σ(u >> k) over the p-th partition of the order at hand; counts[p] its sample count.
  const sums = riceSums;
  const counts = riceCounts;
  sums.fill(0, 0, parts * K);
  let at = 0;
  for (let p = 0; p < parts; p++) {
    const end = (p + 1) * partLen - predictorOrder;
    counts[p] = end - at;
    const first = p * K;
    const last = first + K;
    for (; at < end; at++) {
      const r = res[at]!;
      // Residuals fit 31 bits (fixed predictors of 16-bit samples; LPC residuals are held to ±2^30),
      // so the folded u is below 2^31 and u >>> 1 is Math.floor(u / 2) on integers, without the division.
      let u = r >= 0 ? 2 * r : -2 * r - 1;
      for (let k = first; k < last && u > 0; k++) {
        sums[k] = sums[k]! + u;
        u >>>= 1;
      }
    }
  }

  let best: RicePlan | null = null;
  for (let order = maxOrder; order >= 0; order--) {
    const n = 1 << order;
    let bits = 2 + 4;
    let atMax = false;
    const params: number[] = [];
    for (let p = 0; p < n; p++) {
      const { k, bits: b } = bestParameter(sums, p * K, counts[p]!, MAX_RICE4);
      if (k === MAX_RICE4) atMax = true;
      params.push(k);
      bits += 4 + b;
    }
    if (best === null || bits < best.bits) best = { bits, method: 0, order, params };
    if (atMax) {
      let bits5 = 2 + 4;
      const params5: number[] = [];
      for (let p = 0; p < n; p++) {
        const { k, bits: b } = bestParameter(sums, p * K, counts[p]!, MAX_RICE5);
        params5.push(k);
        bits5 += 5 + b;
      }
      if (bits5 < best.bits) best = { bits: bits5, method: 1, order, params: params5 };
    }
    if (order > 0) {
      // Pairs of partitions merged in place: partition p of the next order reads 2p and 2p + 1 ≥ p.
      for (let p = 0; p < n / 2; p++) {
        counts[p] = counts[2 * p]! + counts[2 * p + 1]!;
        for (let k = 0; k < K; k++) sums[p * K + k] = sums[2 * p * K + k]! + sums[(2 * p + 1) * K + k]!;
      }
    }
  }
  return best!;
}

/** Highest LPC order tried (libFLAC's default at its usual levels). */
const MAX_LPC_ORDER = 8;
/**
 * Bits of each quantised LPC coefficient. With the side channel's 17 bits and order 8, a
 * prediction sum fits 32-bit arithmetic (17 + 12 + 3 ≤ 32), so no decoder needs 64 bits.
 */
const LPC_PRECISION = 12;
/** The shift field is 5 bits signed and must not be negative (RFC 9639 9.2.6). */
const MAX_LPC_SHIFT = 15;

/**
 * Linear-prediction coefficients of orders 1..maxOrder (result[p - 1] has p of them, the first
 * for the most recent sample): Levinson-Durbin on the autocorrelation of the Welch-windowed block.
 * Floating point, but only +, −, × and ÷ in a fixed order, which ECMAScript defines exactly
 * (IEEE 754 doubles, no fused operations), so every machine gets the same coefficients.
 */
function lpcCoefficients(x: Int32Array, maxOrder: number): number[][] {
  const n = x.length;
  const half = (n + 1) / 2;
  const mid = (n - 1) / 2;
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = (i - mid) / half;
    w[i] = x[i]! * (1 - t * t);
  }
  const r = new Float64Array(maxOrder + 1);
  for (let lag = 0; lag <= maxOrder; lag++) {
    let sum = 0;
    for (let i = lag; i < n; i++) sum += w[i]! * w[i - lag]!;
    r[lag] = sum;
  }
  const out: number[][] = [];
  let a: number[] = [];
  let err = r[0]!;
  for (let m = 1; m <= maxOrder && err > 0; m++) {
    let acc = r[m]!;
    for (let j = 1; j < m; j++) acc -= a[j - 1]! * r[m - j]!;
    const k = acc / err;
    const next = new Array<number>(m);
    for (let j = 1; j < m; j++) next[j - 1] = a[j - 1]! - k * a[m - j - 1]!;
    next[m - 1] = k;
    a = next;
    err *= 1 - k * k;
    out.push(a.slice());
  }
  return out;
}

/** Coefficients as LPC_PRECISION-bit integers and their shift (libFLAC's method: rounding with error feedback). */
function quantizeLpc(coefs: number[]): { q: Int32Array; shift: number } | null {
  let cmax = 0;
  for (const c of coefs) cmax = Math.max(cmax, Math.abs(c));
  if (!(cmax > 0) || !Number.isFinite(cmax)) return null;
  // cmax = m·2^e with m in [0.5, 1): halving and doubling are exact.
  let e = 0;
  for (let v = cmax; v >= 1; v /= 2) e++;
  for (let v = cmax; v < 0.5; v *= 2) e--;
  const shift = Math.min(MAX_LPC_SHIFT, LPC_PRECISION - 1 - e);
  if (shift < 0) return null;
  const qmax = pow2(LPC_PRECISION - 1) - 1;
  const q = new Int32Array(coefs.length);
  let error = 0;
  for (let j = 0; j < coefs.length; j++) {
    error += coefs[j]! * pow2(shift);
    const v = Math.max(-qmax - 1, Math.min(qmax, Math.round(error)));
    q[j] = v;
    error -= v;
  }
  return { q, shift };
}

/** Residual of a quantised LPC predictor at sample i ≥ order, written at the start of `into`, or null if one would not fit 31 bits. */
function lpcResiduals(x: Int32Array, q: Int32Array, shift: number, into: Int32Array): Int32Array | null {
  const order = q.length;
  const n = x.length;
  const r = into.subarray(0, n - order);
  const scale = pow2(shift);
  for (let i = order; i < n; i++) {
    let sum = 0;
    for (let j = 0; j < order; j++) sum += q[j]! * x[i - 1 - j]!;
    // An arithmetic right shift, as decoders do it.
    const v = x[i]! - Math.floor(sum / scale);
    if (v >= pow2(30) || v < -pow2(30)) return null;
    r[i - order] = v;
  }
  return r;
}

type Subframe =
  | { kind: 'constant'; bits: number }
  | { kind: 'verbatim'; bits: number }
  | { kind: 'fixed'; bits: number; order: number; residual: Int32Array; rice: RicePlan }
  | { kind: 'lpc'; bits: number; order: number; q: Int32Array; shift: number; residual: Int32Array; rice: RicePlan };

/** The smallest subframe of one channel's block of `bps`-bit samples, with its size in bits. */
function planSubframe(x: Int32Array, bps: number): Subframe {
  const n = x.length;
  const header = 8;
  let constant = true;
  for (let i = 1; i < n && constant; i++) constant = x[i] === x[0];
  if (constant) return { kind: 'constant', bits: header + bps };
  let best: Subframe = { kind: 'verbatim', bits: header + n * bps };
  // Two residual buffers: each candidate is computed into the one the best so far does not hold
  // (buffers[free]), rather than into a new array per candidate.
  const buffers = [new Int32Array(n), new Int32Array(n)];
  let free = 0;
  for (let order = 0; order <= 4 && order < n; order++) {
    const residual = fixedResiduals(x, order, buffers[free]!);
    const rice = planRice(residual, n, order);
    const bits = header + order * bps + rice.bits;
    if (bits < best.bits) {
      best = { kind: 'fixed', bits, order, residual, rice };
      free ^= 1;
    }
  }
  if (n > 2 * MAX_LPC_ORDER) {
    const sets = lpcCoefficients(x, MAX_LPC_ORDER);
    for (const coefs of sets) {
      const order = coefs.length;
      const quantized = quantizeLpc(coefs);
      if (quantized === null) continue;
      const residual = lpcResiduals(x, quantized.q, quantized.shift, buffers[free]!);
      if (residual === null) continue;
      const rice = planRice(residual, n, order);
      const bits = header + order * bps + 4 + 5 + order * LPC_PRECISION + rice.bits;
      if (bits < best.bits) {
        best = { kind: 'lpc', bits, order, q: quantized.q, shift: quantized.shift, residual, rice };
        free ^= 1;
      }
    }
  }
  return best;
}

function writeSubframe(w: BitWriter, x: Int32Array, bps: number, plan: Subframe): void {
  // Zero padding bit, the 6-bit type, no wasted bits.
  if (plan.kind === 'constant') {
    w.bits(0b00000000, 8);
    w.signed(x[0]!, bps);
    return;
  }
  if (plan.kind === 'verbatim') {
    w.bits(0b00000010, 8);
    for (const s of x) w.signed(s, bps);
    return;
  }
  const { order, residual, rice } = plan;
  w.bits((plan.kind === 'fixed' ? 0b001000 | order : 0b100000 | (order - 1)) << 1, 8);
  for (let i = 0; i < order; i++) w.signed(x[i]!, bps);
  if (plan.kind === 'lpc') {
    w.bits(LPC_PRECISION - 1, 4);
    w.signed(plan.shift, 5);
    for (const c of plan.q) w.signed(c, LPC_PRECISION);
  }
  w.bits(rice.method, 2);
  w.bits(rice.order, 4);
  const partLen = x.length >> rice.order;
  let at = 0;
  for (let p = 0; p < rice.params.length; p++) {
    const k = rice.params[p]!;
    w.bits(k, rice.method === 0 ? 4 : 5);
    const end = (p + 1) * partLen - order;
    for (; at < end; at++) {
      const r = residual[at]!;
      const u = r >= 0 ? 2 * r : -2 * r - 1;
      w.unary(Math.floor(u / pow2(k)));
      w.bits(u % pow2(k), k);
    }
  }
}

/** Frame and sample numbers in the UTF-8-like coding of RFC 9639 9.1.5 (up to 36 bits). */
function writeCodedNumber(w: BitWriter, v: number): void {
  if (v < 0x80) {
    w.bits(v, 8);
    return;
  }
  let extra = 1;
  while (extra < 6 && v >= pow2(6 + 5 * extra)) extra++;
  const lead = (0xff << (7 - extra)) & 0xff;
  w.bits(lead | Math.floor(v / pow2(6 * extra)), 8);
  for (let i = extra - 1; i >= 0; i--) w.bits(0x80 | (Math.floor(v / pow2(6 * i)) & 0x3f), 8);
}

function blockSizeCode(n: number): { code: number; extra: number; extraBits: number } {
  if (n === 4096) return { code: 0b1100, extra: 0, extraBits: 0 };
  if (n <= 256) return { code: 0b0110, extra: n - 1, extraBits: 8 };
  return { code: 0b0111, extra: n - 1, extraBits: 16 };
}

/** One block (frame) of every channel: header, subframes, padding, CRC-16. */
function writeFrame(w: BitWriter, block: Int32Array[], frameNumber: number, rateCode: number): void {
  const n = block[0]!.length;
  let assignment = block.length - 1;
  let subframes: Array<{ x: Int32Array; bps: number; plan: Subframe }>;
  const independent = block.map((x) => ({ x, bps: BITS_PER_SAMPLE, plan: planSubframe(x, BITS_PER_SAMPLE) }));
  subframes = independent;
  if (block.length === 2) {
    const [left, right] = block as [Int32Array, Int32Array];
    const side = new Int32Array(n);
    const mid = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      side[i] = left[i]! - right[i]!;
      mid[i] = (left[i]! + right[i]!) >> 1;
    }
    const sideBps = BITS_PER_SAMPLE + 1;
    const s = { x: side, bps: sideBps, plan: planSubframe(side, sideBps) };
    const m = { x: mid, bps: BITS_PER_SAMPLE, plan: planSubframe(mid, BITS_PER_SAMPLE) };
    const [l, r] = independent as [(typeof independent)[0], (typeof independent)[0]];
    const options: Array<[number, typeof subframes]> = [
      [1, [l, r]],
      [LEFT_SIDE, [l, s]],
      [SIDE_RIGHT, [s, r]],
      [MID_SIDE, [m, s]],
    ];
    let bestBits = Infinity;
    for (const [a, subs] of options) {
      const bits = subs[0]!.plan.bits + subs[1]!.plan.bits;
      if (bits < bestBits) {
        bestBits = bits;
        assignment = a;
        subframes = subs;
      }
    }
  }

  const start = w.byteLength;
  const size = blockSizeCode(n);
  w.bits(0b11111111111110, 14);
  w.bits(0, 1); // reserved
  w.bits(0, 1); // fixed block size: the header counts frames
  w.bits(size.code, 4);
  w.bits(rateCode, 4);
  w.bits(assignment, 4);
  w.bits(0b100, 3); // 16 bits a sample
  w.bits(0, 1); // reserved
  writeCodedNumber(w, frameNumber);
  w.bits(size.extra, size.extraBits);
  w.bits(crc8(w.view(start)), 8);
  for (const sf of subframes) writeSubframe(w, sf.x, sf.bps, sf.plan);
  w.align();
  w.bits(crc16(w.view(start)), 16);
}

/**
 * 16-bit PCM as a FLAC file (RFC 9639): STREAMINFO with the samples' MD5, fixed
 * 4096-sample frames, per channel and frame the smallest of a constant, verbatim,
 * fixed-predictor (orders 0-4) or LPC (orders 1-8, 12-bit coefficients) subframe
 * with partitioned Rice residuals, and for stereo the smallest of left/right,
 * left/side, side/right and mid/side.
 * Deterministic: the same samples give the same bytes.
 *
 * @param channels - one Int16Array per channel (1 to 8), all of the same non-zero length
 * @param sampleRate - samples a second, a positive integer below 2^20
 */
export function encodeFlac16(channels: Int16Array[], sampleRate: number): Uint8Array {
  if (!Array.isArray(channels) || channels.length < 1 || channels.length > 8) {
    throw invalidParameter('channels', '1 to 8 channels', Array.isArray(channels) ? `${channels.length} channels` : typeof channels);
  }
  if (!channels.every((c) => c instanceof Int16Array)) throw invalidParameter('channels', 'an Int16Array per channel', 'another type');
  const length = channels[0]!.length;
  // STREAMINFO's sample count of 0 means "unknown": an empty stream is refused rather than written so.
  if (length === 0) throw invalidParameter('channels', 'at least one sample', 0);
  if (!channels.every((c) => c.length === length)) {
    throw invalidParameter('channels', 'channels of the same length', channels.map((c) => c.length).join(', '));
  }
  if (!Number.isInteger(sampleRate) || sampleRate <= 0 || sampleRate > MAX_SAMPLE_RATE) {
    throw invalidParameter('sampleRate', `a positive integer up to ${MAX_SAMPLE_RATE}`, sampleRate);
  }

  const count = channels.length;
  // MD5 of the interleaved samples, little-endian, as the decoder would output them.
  const interleaved = new Uint8Array(length * count * 2);
  const dv = new DataView(interleaved.buffer);
  for (let i = 0; i < length; i++) for (let c = 0; c < count; c++) dv.setInt16((i * count + c) * 2, channels[c]![i]!, true);
  const md5 = new Uint8Array(createHash('md5').update(interleaved).digest());

  const w = new BitWriter();
  w.bytes(new TextEncoder().encode('fLaC'));
  w.bits(1, 1); // the last (only) metadata block
  w.bits(0, 7); // STREAMINFO
  w.bits(34, 24);
  w.bits(FLAC_BLOCK_SIZE, 16);
  w.bits(FLAC_BLOCK_SIZE, 16);
  const frameSizesAt = w.byteLength;
  w.bits(0, 24); // minimum and maximum frame sizes, filled in below
  w.bits(0, 24);
  w.bits(sampleRate, 20);
  w.bits(count - 1, 3);
  w.bits(BITS_PER_SAMPLE - 1, 5);
  w.wide(length, 36);
  w.bytes(md5);

  const rateCode = RATE_CODES.get(sampleRate) ?? 0;
  let minFrame = Infinity;
  let maxFrame = 0;
  for (let from = 0, frame = 0; from < length; from += FLAC_BLOCK_SIZE, frame++) {
    const to = Math.min(length, from + FLAC_BLOCK_SIZE);
    const block = channels.map((c) => Int32Array.from(c.subarray(from, to)));
    const start = w.byteLength;
    writeFrame(w, block, frame, rateCode);
    const size = w.byteLength - start;
    minFrame = Math.min(minFrame, size);
    maxFrame = Math.max(maxFrame, size);
  }

  const out = w.result();
  if (maxFrame > 0) {
    // Frame sizes fit 24 bits: a frame of 4096 16-bit samples in 8 channels is at most about 66 kB.
    const put24 = (at: number, v: number): void => {
      out[at] = (v >>> 16) & 0xff;
      out[at + 1] = (v >>> 8) & 0xff;
      out[at + 2] = v & 0xff;
    };
    put24(frameSizesAt, minFrame);
    put24(frameSizesAt + 3, maxFrame);
  }
  return out;
}
