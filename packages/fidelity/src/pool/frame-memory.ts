/**
 * A pair's decoded frames read straight into the metric kernels' memory: the
 * decoders' socket reads land in buffers carved out of a wasm memory of the
 * pair's own (metrics/wasm.ts leaseKernels), and the metrics read the planes
 * where they lie instead of copying them in (metrics/registry.ts): about 0.2
 * ms of copying per 1344x768 frame pair, and 12 MB of frame buffers per pair
 * the garbage collector never sees.
 *
 * A wasm memory detaches every view into it when it grows, so the order is
 * fixed: lease the instance, lay out every metric's memory on it (the
 * accumulator reserves its layout when created), then carve the buffers and
 * pin it (from then on it cannot grow). The lease goes back to the thread
 * only once the pair's processes have exited and their sockets are closed
 * (ProcessScope.defer): no read may land in memory someone else holds.
 *
 * Only for frames measured in this thread: a wasm memory cannot be moved to
 * another thread, so with video helper threads the frames keep buffers of
 * their own. When the pool is empty (a reader's extra buffers while its
 * sibling waits), a reader gets a fresh array, and the metrics copy that one.
 */
import type { RecordBuffers } from '../media/frame-reader.js';
import { align, leaseKernels, returnKernels } from '../metrics/wasm.js';
import type { Kernels } from '../metrics/wasm.js';

export interface FrameMemory {
  /** The pair's own kernels: create the metrics on them before `buffers()`. */
  readonly kernels: Kernels;
  /** Carves the record buffers and pins the memory; call once, after every metric is laid out. */
  buffers(): RecordBuffers;
  /** Gives the kernels back to the thread; call once nothing can write into them any more. */
  close(): void;
}

class KernelBuffers implements RecordBuffers {
  readonly #free: Uint8Array[] = [];
  readonly #memory: ArrayBuffer;
  readonly #start: number;
  readonly #stride: number;
  readonly #end: number;
  readonly #recordBytes: number;

  constructor(k: Kernels, start: number, recordBytes: number, count: number) {
    this.#memory = k.fn.memory.buffer;
    this.#start = start;
    this.#stride = align(recordBytes);
    this.#end = start + count * this.#stride;
    this.#recordBytes = recordBytes;
    for (let i = count - 1; i >= 0; i--) this.#free.push(k.u8(start + i * this.#stride, recordBytes));
  }

  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.#recordBytes);
  }

  give(buffer: Uint8Array): void {
    if (this.owns(buffer)) this.#free.push(buffer);
  }

  owns(buffer: Uint8Array): boolean {
    const at = buffer.byteOffset;
    return buffer.buffer === this.#memory && buffer.byteLength === this.#recordBytes && at >= this.#start && at < this.#end && (at - this.#start) % this.#stride === 0;
  }
}

/** Kernels of the pair's own with room for `count` records of `recordBytes` (both sides' readers draw on one pool). */
export function leaseFrameMemory(recordBytes: number, count: number): FrameMemory {
  const { kernels, keptAt } = leaseKernels(count * align(recordBytes));
  let carved = false;
  let closed = false;
  return {
    kernels,
    buffers(): RecordBuffers {
      if (carved) throw new Error('frame memory carved twice');
      carved = true;
      kernels.pin();
      return new KernelBuffers(kernels, keptAt, recordBytes, count);
    },
    close(): void {
      if (closed) return;
      closed = true;
      returnKernels(kernels);
    },
  };
}
