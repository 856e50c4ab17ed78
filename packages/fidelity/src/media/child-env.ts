/**
 * The environment every ffmpeg and ffprobe child runs with: the caller's, with OpenBLAS held to one
 * thread unless the caller chose a count.
 *
 * Distribution builds of ffmpeg (Debian's among them) link OpenBLAS through their filter libraries.
 * Its constructor starts a thread per core when the process loads, and those threads spin on
 * sched_yield for a while before they sleep, on every ffmpeg and ffprobe start, though decoding,
 * probing and encoding never call BLAS. With one thread nothing is started and the output is the
 * same (docs/media.md, "Child processes", has what it saves).
 */

/** The variable OpenBLAS reads first for its thread count. */
export const OPENBLAS_THREADS_VARIABLE = 'OPENBLAS_NUM_THREADS';

/**
 * `base` (by default this process's environment) with OPENBLAS_NUM_THREADS=1 where `base` does not set
 * it: a value the caller set is theirs and is kept.
 */
export function childEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return base[OPENBLAS_THREADS_VARIABLE] === undefined ? { ...base, [OPENBLAS_THREADS_VARIABLE]: '1' } : base;
}
