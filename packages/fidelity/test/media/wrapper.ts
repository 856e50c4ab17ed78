/**
 * Decoders given as wrapper scripts, as users write them (a shell script that
 * starts the real ffmpeg, or other processes, as its own children), and a
 * way to see whether such a grandchild is still running.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { binaryCandidates } from '../../src/media/ffmpeg.js';

/** The ffmpeg the library would pick on its own. */
export function realFfmpeg(): string {
  const first = binaryCandidates('ffmpeg')[0];
  if (!first) throw new Error('no ffmpeg found for the test');
  return first.path;
}

/** The ffprobe the library would pick on its own. */
export function realFfprobe(): string {
  const first = binaryCandidates('ffprobe')[0];
  if (!first) throw new Error('no ffprobe found for the test');
  return first.path;
}

/**
 * An executable "ffmpeg": `-version` goes to the real one (so it resolves);
 * the real ffprobe is linked beside it, since ffmpeg and ffprobe are always
 * taken from one folder when only one of them is named;
 * any other call runs `body`, where $REAL is the real ffmpeg and $PIDS a file
 * each started grandchild's pid can be appended to.
 */
export function wrapperDecoder(dir: string, name: string, body: string): { file: string; pids: string } {
  const file = path.join(dir, name);
  const pids = path.join(dir, `${name}.pids`);
  writeFileSync(pids, '');
  const text = [
    '#!/bin/sh',
    `REAL='${realFfmpeg()}'`,
    `PIDS='${pids}'`,
    'case " $* " in *" -version "*) exec "$REAL" "$@";; esac',
    body,
    '',
  ].join('\n');
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  const probe = path.join(dir, 'ffprobe');
  if (!existsSync(probe)) symlinkSync(realFfprobe(), probe);
  return { file, pids };
}

export function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number);
}

/** Running means present and not a zombie (a killed orphan may wait for a PID 1 that never reaps). */
export function running(pid: number): boolean {
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const stat = r.stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
}

/** Waits up to `ms` for every pid to stop running; returns those still running. */
export async function stillRunningAfter(pids: readonly number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = pids.filter(running);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * ffmpeg and ffprobe in `dir` (made here) that append each run's arguments to `log`, prefixed
 * with the tool's name, and exec the real ones; the toolchain's `-version` checks are not logged.
 * For tests that count the decodes and probes a command starts.
 */
export function loggingTools(dir: string, log: string): { ffmpegPath: string; ffprobePath: string } {
  mkdirSync(dir, { recursive: true });
  for (const [tool, real] of [['ffmpeg', realFfmpeg()], ['ffprobe', realFfprobe()]] as const) {
    writeFileSync(path.join(dir, tool), `#!/bin/sh\ncase " $* " in *" -version "*) ;; *) echo "${tool} $*" >> '${log}';; esac\nexec '${real}' "$@"\n`);
    chmodSync(path.join(dir, tool), 0o755);
  }
  return { ffmpegPath: path.join(dir, 'ffmpeg'), ffprobePath: path.join(dir, 'ffprobe') };
}
