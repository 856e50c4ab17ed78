/**
 * Every ffmpeg and ffprobe child runs with OpenBLAS held to one thread unless the caller set a
 * count: the `-version` run of the resolution, the scope's decoders and probes, and the real ffmpeg
 * starts no OpenBLAS threads then.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { OPENBLAS_THREADS_VARIABLE, childEnv } from '../../src/media/child-env.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { ProcessScope } from '../../src/media/process.js';
import { realFfmpeg } from './wrapper.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-child-env-'));
const saved = process.env[OPENBLAS_THREADS_VARIABLE];
afterEach(() => {
  if (saved === undefined) delete process.env[OPENBLAS_THREADS_VARIABLE];
  else process.env[OPENBLAS_THREADS_VARIABLE] = saved;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A script named `name` that prints "<name> version <its OPENBLAS_NUM_THREADS>" for `-version`, else writes it to `out`. */
function envScript(name: 'ffmpeg' | 'ffprobe', out: string): string {
  const file = path.join(tmp, name);
  writeFileSync(file, `#!/bin/sh\ncase " $* " in *" -version "*) echo "${name} version [\${${OPENBLAS_THREADS_VARIABLE}-unset}]"; exit 0;; esac\necho "\${${OPENBLAS_THREADS_VARIABLE}-unset}" > '${out}'\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('childEnv', () => {
  it('adds OPENBLAS_NUM_THREADS=1 to an environment without it, and keeps everything else', () => {
    const env = childEnv({ PATH: '/bin', HOME: '/h' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', [OPENBLAS_THREADS_VARIABLE]: '1' });
  });

  it("keeps the caller's own count, whatever it is", () => {
    expect(childEnv({ [OPENBLAS_THREADS_VARIABLE]: '4' })[OPENBLAS_THREADS_VARIABLE]).toBe('4');
    expect(childEnv({ [OPENBLAS_THREADS_VARIABLE]: '' })[OPENBLAS_THREADS_VARIABLE]).toBe('');
  });
});

describe('the children see it', () => {
  it('the -version runs of the resolution, and a decoder the scope starts', async () => {
    delete process.env[OPENBLAS_THREADS_VARIABLE];
    const out = path.join(tmp, 'decoder-env');
    const ffmpeg = envScript('ffmpeg', out);
    const ffprobe = envScript('ffprobe', out);
    const tools = await resolveFfmpeg({ ffmpegPath: ffmpeg, ffprobePath: ffprobe });
    expect(tools.ffmpeg.version).toBe('ffmpeg version [1]');
    expect(tools.ffprobe.version).toBe('ffprobe version [1]');
    const scope = new ProcessScope();
    try {
      const child = scope.spawn(ffmpeg, ['-i', 'x'], { label: 'env', pipes: [1], timeoutMs: 10_000 });
      expect((await child.exited).reason).toBe('exit');
    } finally {
      await scope.close();
    }
    expect(readFileSync(out, 'utf8').trim()).toBe('1');
  });

  it('a count the caller set reaches the child unchanged', async () => {
    process.env[OPENBLAS_THREADS_VARIABLE] = '3';
    const out = path.join(tmp, 'decoder-env-set');
    const ffmpeg = envScript('ffmpeg', out);
    const scope = new ProcessScope();
    try {
      await scope.spawn(ffmpeg, ['-i', 'x'], { label: 'env', pipes: [1], timeoutMs: 10_000 }).exited;
    } finally {
      await scope.close();
    }
    expect(readFileSync(out, 'utf8').trim()).toBe('3');
  });

  it('the real ffmpeg, started by the scope, starts no OpenBLAS threads', async () => {
    // Its thread count, read from /proc while it reads an endless source in real time.
    const threadsOf = async (count: string | undefined): Promise<{ threads: number; openblas: boolean }> => {
      // The variable as the caller left it; afterEach puts the file's own value back.
      if (count === undefined) delete process.env[OPENBLAS_THREADS_VARIABLE];
      else process.env[OPENBLAS_THREADS_VARIABLE] = count;
      const scope = new ProcessScope();
      try {
        const child = scope.spawn(realFfmpeg(), ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'nullsrc=s=16x16:r=1', '-f', 'null', '-'], { label: 'idle', pipes: [1], timeoutMs: 60_000 });
        await new Promise((r) => setTimeout(r, 1500));
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return { threads: Number(/^Threads:\s+(\d+)/m.exec(status)![1]), openblas: readFileSync(`/proc/${child.pid}/maps`, 'utf8').includes('libopenblas') };
      } finally {
        await scope.close();
      }
    };
    const ours = await threadsOf(undefined);
    const four = await threadsOf('4');
    // Where the build links OpenBLAS (Debian's does), it starts a thread of its own for each but one of
    // the count asked for, up to the cores it may use; a build without it has the same threads either way.
    expect(four.openblas).toBe(ours.openblas);
    expect(four.threads - ours.threads).toBe(ours.openblas ? Math.min(4, os.availableParallelism()) - 1 : 0);
  });
});
