/**
 * The WebAssembly SIMD kernels (wasm/kernels.c, built into
 * assets/metrics-kernels.wasm by scripts/build-wasm.sh) and their linear
 * memory.
 *
 * One instance per thread, created on first use and compiled synchronously so
 * that the metric functions stay synchronous. Kernels keep no state between
 * calls: each caller lays its buffers out from `base` for the duration of one
 * synchronous call, so callers never see each other's data even when two
 * accumulators interleave in one thread.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { FidelityError } from '../errors.js';

// The compiler's lib has no WebAssembly declarations (no DOM lib): the few members used are typed here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WebAssemblyApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface KernelExports {
  memory: WasmMemory;
  heap_base(): number;
  ssim_gauss(a: number, b: number, w: number, h: number, taps: number, scratch: number): number;
  ssim_box7(a: number, b: number, cols: number, h: number, step: number, scratch: number): number;
  ssim_ffmpeg_plane(a: number, b: number, w: number, h: number, temp: number): number;
  // The scratch each kernel's pointer arithmetic needs, defined next to that arithmetic (one definition, as FFmpeg's SUM_LEN).
  ssim_gauss_scratch_bytes(w: number): number;
  ssim_box7_scratch_bytes(cols: number): number;
  ssim_ffmpeg_temp_ints(w: number): number;
  diff_stats(a: number, b: number, n: number, out: number): void;
  /** rgb24 from planar 4:2:0 (vshift 1) or 4:2:2 (vshift 0); table = 2 * matrix + full range; 0, or -1 when refused. */
  yuv_rgb24(y: number, u: number, v: number, w: number, h: number, cw: number, vshift: number, table: number, out: number): number;
  /** Both sides' rgb24 (written only where outa and outb are nonzero) and diff_stats of them into stats (metrics/rgb24.ts). */
  yuv_rgb24_pair(
    ya: number, ua: number, va: number, yb: number, ub: number, vb: number,
    w: number, h: number, cw: number, vshift: number, table: number, outa: number, outb: number, stats: number,
  ): number;
  /** One clip frame's largest and smallest rgb24 sample and sum |img - prev| (prev 0: none) into stats[0..2] (metrics/clip-video.ts). */
  clip_frame_rgb24(img: number, prev: number, n: number, stats: number): void;
  /** The same from the planes, the frame's rgb24 written to out as it is measured; 0, or -1 when refused. */
  clip_frame_yuv(y: number, u: number, v: number, w: number, h: number, cw: number, vshift: number, table: number, out: number, prev: number, stats: number): number;
  /** In-place radix-2 FFT of n float64 (re, im), twiddles cos/sin of every stage (metrics/fft.ts). */
  fft_f64(re: number, im: number, n: number, cos: number, sin: number, inverse: number): void;
  /** conj(X) * Y from Z = FFT(x + i y) of real x, y (metrics/lag.ts). */
  fft_cross_spectrum(zr: number, zi: number, cr: number, ci: number, size: number): void;
  /** One spectral-cosine window of both sides, its three dot products added to acc[0..2] (metrics/fft.ts). */
  spectral_window(a: number, b: number, win: number, n: number, fill: number, cos: number, sin: number, rcos: number, rsin: number, scratch: number, acc: number): void;
}

// Resolves from src/metrics/ and from dist/metrics/ alike.
const WASM_URL = new URL('../../assets/metrics-kernels.wasm', import.meta.url);
const PAGE = 65536;

export class Kernels {
  readonly fn: KernelExports;
  /** First free byte after the module's own data and stack (and, for a leased instance, after what its holder keeps there), 16-aligned. */
  readonly base: number;
  /** Set once views into the memory are held across calls: growing it then would detach them. */
  #pinned = false;

  constructor(fn: KernelExports, base = fn.heap_base()) {
    this.fn = fn;
    this.base = align(base);
  }

  /** Makes [base, base + bytes) addressable; returns base. */
  reserve(bytes: number): number {
    const needed = this.base + bytes;
    const have = this.fn.memory.buffer.byteLength;
    if (needed > have) {
      if (this.#pinned) throw new FidelityError('INTERNAL', `The metric kernels' memory is pinned at ${have} bytes and cannot grow to ${needed}`);
      this.fn.memory.grow(Math.ceil((needed - have) / PAGE));
    }
    return this.base;
  }

  /**
   * From now on the memory never grows (reserve() beyond it throws): views into it stay valid, so
   * a caller may keep buffers there across calls (frames read straight into it: pool/frame-memory.ts).
   */
  pin(): void {
    this.#pinned = true;
  }

  get pinned(): boolean {
    return this.#pinned;
  }

  /** Views are rebuilt on every use: growing the memory detaches old ones. */
  u8(offset: number, length: number): Uint8Array {
    return new Uint8Array(this.fn.memory.buffer, offset, length);
  }

  f64(offset: number, length: number): Float64Array {
    return new Float64Array(this.fn.memory.buffer, offset, length);
  }

  i32(offset: number, length: number): Int32Array {
    return new Int32Array(this.fn.memory.buffer, offset, length);
  }
}

export function align(n: number): number {
  return (n + 15) & ~15;
}

/** Sequential 16-aligned offsets for one call's buffers. */
export class Layout {
  private end: number;

  constructor(start: number) {
    this.end = align(start);
  }

  take(bytes: number): number {
    const at = this.end;
    this.end = align(at + bytes);
    return at;
  }

  get size(): number {
    return this.end;
  }
}

let instance: Kernels | undefined;
let compiled: object | undefined;

function instantiate(): KernelExports {
  if (!compiled) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(WASM_URL);
    } catch (cause) {
      throw new FidelityError('INTERNAL', `The metric kernels (${WASM_URL.pathname}) are missing from this installation`, { cause });
    }
    // Each kernel call is one long loop, and V8 cannot swap in optimised code
    // in the middle of a wasm call: with its default lazy tiering a whole
    // frame, often the whole stream, runs in the baseline compiler at about
    // half speed. Compiling the module with the optimising compiler up front
    // takes milliseconds (the module is small).
    setFlagsFromString('--no-wasm-dynamic-tiering');
    compiled = new WebAssemblyApi.Module(bytes);
  }
  return new WebAssemblyApi.Instance(compiled, {}).exports as KernelExports;
}

/** This thread's kernels, shared by every metric call of the thread (each lays its buffers out from `base` for one call). */
export function kernels(): Kernels {
  instance ??= new Kernels(instantiate());
  return instance;
}

/** Leased instances given back, for the next lease of this thread (one is kept: a stream's worth of memory). */
let idle: KernelExports | undefined;

/**
 * An instance of the kernels with a memory of its own, for one holder that keeps buffers in it
 * across calls (one pair's frames: pool/frame-memory.ts): `kept` bytes from the module's heap base
 * are the holder's, and the returned Kernels lays calls out after them. Give it back with
 * returnKernels once no view into it is used any more.
 */
export function leaseKernels(kept: number): { kernels: Kernels; keptAt: number } {
  const fn = idle ?? instantiate();
  idle = undefined;
  const keptAt = align(fn.heap_base());
  const k = new Kernels(fn, keptAt + kept);
  k.reserve(0);
  return { kernels: k, keptAt };
}

/** A leased instance back to the thread (its memory is reused by the next lease, which may grow it before pinning). */
export function returnKernels(k: Kernels): void {
  if (k !== instance) idle = k.fn;
}
