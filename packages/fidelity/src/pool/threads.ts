import os from 'node:os';

/** One worker per available core: decoding runs in ffmpeg child processes, so more would only contend. */
export function defaultThreadCount(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}
