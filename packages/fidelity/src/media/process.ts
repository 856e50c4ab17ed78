/**
 * Every ffmpeg/ffprobe child process of the library is started here, so that
 * three promises hold everywhere: a child has a wall-clock limit, it is killed
 * when the caller aborts, and it never outlives the call that started it
 * (`ProcessScope.close()` kills what is left and waits for the exits).
 * "Killed" means its whole process group: a decoder given as a wrapper script
 * takes the processes it started down with it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { FidelityError } from '../errors.js';
import type { SocketChannel } from './socket-channel.js';
import { checkBounded, withinBounds } from '../bounds.js';
import { childEnv } from './child-env.js';

/** Enough of ffmpeg's stderr to show why it failed, without holding a chatty log. */
const STDERR_TAIL_BYTES = 4096;

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it ended: on its own, killed by its time limit, by an abort, or by the scope closing. */
  reason: 'exit' | 'timeout' | 'aborted' | 'closed';
  stderr: string;
  /** Set when the binary could not be started at all (missing, not executable). */
  startError?: string;
}

export interface Child {
  readonly pid: number | undefined;
  readonly process: ChildProcess;
  /** stdout and the extra pipes (fd 3, 4, ...) in fd order; undefined where not a pipe. */
  pipe(fd: number): Readable;
  /** Settles once the process has exited and its stdio has closed; never rejects. */
  readonly exited: Promise<ChildExit>;
  kill(reason: ChildExit['reason']): void;
}

export interface SpawnOptions {
  /** What this child is, for messages ("ffprobe baseline"). */
  label: string;
  /** Pipes wanted besides stderr: fds 1 and up that the caller reads. */
  pipes: number[];
  /** Output fds that are socket channels instead of pipes; the scope closes our ends with the child. */
  sockets?: Record<number, SocketChannel>;
  timeoutMs: number;
  /**
   * Reads stderr line by line (a decoder's log, decoder-log.ts): what it returns of each chunk is
   * what the tail keeps, so a process logging at a chattier level keeps the tail it had at `error`.
   */
  log?: StderrLog;
  /** The child's working directory (default ours): a decoder runs where its inputs' links are (input-links.ts). */
  cwd?: string;
}

/** A reader of a child's stderr: each chunk in, the text the stderr tail keeps out. */
export interface StderrLog {
  write(chunk: Buffer): string;
  /** The child has exited: the text of a last line without its end. */
  end(): string;
}

/** Process groups of children still running, killed by one exit hook if the process ends with them alive. */
const liveGroups = new Set<number>();
let exitHooked = false;

/**
 * Each child leads its own process group (spawn `detached`), so a wrapper
 * script's own children die with it: a kill goes to the whole group.
 * Windows has no process groups; there the child alone is killed.
 */
const GROUPS = process.platform !== 'win32';

function killGroup(proc: ChildProcess): void {
  if (GROUPS && proc.pid !== undefined) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
      return;
    } catch {
      // The group is gone already, or was never made: fall back to the child itself.
    }
  }
  proc.kill('SIGKILL');
}

function trackGroup(pid: number | undefined): void {
  if (!GROUPS || pid === undefined) return;
  liveGroups.add(pid);
  if (!exitHooked) {
    exitHooked = true;
    // process.exit() (a forced stop of the CLI) skips every close(): the children must not outlive it.
    process.once('exit', () => {
      for (const pgid of liveGroups) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
  }
}

/**
 * Owns the children of one operation. The abort signal and each child's
 * timer kill with SIGKILL: ffmpeg ignores nothing of that, and a decoder stuck
 * on a broken pipe must not linger.
 */
export class ProcessScope {
  readonly #children = new Set<Child>();
  readonly #deferred: (() => void)[] = [];
  /** Our ends of every child's socket channels. */
  readonly #sockets = new Set<Socket>();
  readonly #signal: AbortSignal | undefined;
  #closed = false;
  readonly #onAbort = (): void => {
    for (const child of this.#children) child.kill('aborted');
  };

  constructor(signal?: AbortSignal) {
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  get aborted(): boolean {
    return this.#signal?.aborted ?? false;
  }

  /** Throws ABORTED when the caller has given up, so no new work starts. */
  throwIfAborted(): void {
    if (this.aborted) throw new FidelityError('ABORTED', 'The measurement was cancelled');
  }

  spawn(file: string, args: string[], options: SpawnOptions): Child {
    const sockets = options.sockets ?? {};
    // Past Node's longest timer the limit would fire at once: every entry refuses such a value, and so does the last step.
    if (!withinBounds('timeoutMs', options.timeoutMs)) {
      for (const channel of Object.values(sockets)) {
        channel.releaseChildEnd();
        channel.ours.destroy();
      }
      checkBounded('timeoutMs', options.timeoutMs);
    }
    if (this.#closed || this.aborted) {
      // The caller's socket channels are ours once given: none may stay open.
      for (const channel of Object.values(sockets)) {
        channel.releaseChildEnd();
        channel.ours.destroy();
      }
      if (this.#closed) throw new FidelityError('ABORTED', `${options.label} was not started: the measurement is stopping`);
      this.throwIfAborted();
    }
    const socketFds = Object.keys(sockets).map(Number);
    const maxFd = Math.max(2, ...options.pipes, ...socketFds);
    const stdio: StdioOptions = [];
    for (let fd = 0; fd <= maxFd; fd++) {
      const channel = sockets[fd];
      stdio.push(channel ? channel.childEnd : fd === 2 || options.pipes.includes(fd) ? 'pipe' : 'ignore');
    }
    let proc: ChildProcess;
    try {
      // A group of its own also keeps a terminal's Ctrl-C from reaching ffmpeg directly: the abort path stops it.
      proc = spawn(file, args, { stdio, env: childEnv(), windowsHide: true, detached: GROUPS, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    } catch (error) {
      for (const channel of Object.values(sockets)) channel.ours.destroy();
      throw error;
    } finally {
      // The child has its own copies now (or never will): ours would only hold the end-of-file back.
      for (const channel of Object.values(sockets)) channel.releaseChildEnd();
    }
    const ours = Object.values(sockets).map((channel) => channel.ours);
    for (const socket of ours) this.#sockets.add(socket);

    let reason: ChildExit['reason'] = 'exit';
    /** Set once 'close' (or a failed start) has settled `exited`. */
    let ended = false;
    let stderr = Buffer.alloc(0);
    const keep = (chunk: Buffer): void => {
      if (chunk.length === 0) return;
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES * 2) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    };
    const log = options.log;
    proc.stderr?.on('data', (chunk: Buffer) => keep(log ? Buffer.from(log.write(chunk), 'utf8') : chunk));
    const timer = setTimeout(() => child.kill('timeout'), options.timeoutMs);
    timer.unref();

    const exited = new Promise<ChildExit>((resolve) => {
      let startError: string | undefined;
      let settled = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (settled) return;
        settled = true;
        ended = true;
        clearTimeout(timer);
        if (proc.pid !== undefined) liveGroups.delete(proc.pid);
        this.#children.delete(child);
        if (log) keep(Buffer.from(log.end(), 'utf8'));
        const text = stderr.subarray(Math.max(0, stderr.length - STDERR_TAIL_BYTES)).toString('utf8').trim();
        resolve(startError === undefined ? { code, signal, reason, stderr: text } : { code, signal, reason, stderr: text, startError });
      };
      proc.once('error', (err) => {
        // 'close' does not always follow when the spawn itself failed.
        if (proc.pid === undefined) {
          startError = err.message;
          finish(null, null);
        }
      });
      proc.once('close', (code, signal) => finish(code, signal));
    });

    const child: Child = {
      pid: proc.pid,
      process: proc,
      exited,
      pipe(fd: number): Readable {
        const stream = proc.stdio[fd];
        if (!stream || !options.pipes.includes(fd)) throw new FidelityError('INTERNAL', `${options.label} has no pipe on fd ${fd}`);
        return stream as Readable;
      },
      kill(why: ChildExit['reason']): void {
        const running = proc.exitCode === null && proc.signalCode === null;
        if (running) {
          if (reason === 'exit') reason = why;
          killGroup(proc);
        } else if (!ended && GROUPS && proc.pid !== undefined) {
          // The child is gone but 'close' has not come: a process it started still holds its pipes.
          try {
            process.kill(-proc.pid, 'SIGKILL');
            if (reason === 'exit') reason = why;
          } catch {
            // Nothing of the group is left.
          }
        }
        // 'close' waits for every pipe to end, and a paused reader never ends its pipe:
        // once we give up on a child, its unread output goes too.
        if (running || why === 'closed') {
          for (const stream of proc.stdio) stream?.destroy();
          for (const socket of ours) socket.destroy();
        }
      },
    };
    this.#children.add(child);
    trackGroup(proc.pid);
    // An abort that landed between the check above and now must still count.
    if (this.aborted) child.kill('aborted');
    return child;
  }

  /** Runs `fn` once close() has seen every child exit (and their pipes and sockets closed): for memory their outputs were read into. */
  defer(fn: () => void): void {
    this.#deferred.push(fn);
  }

  /** Kills every child still running and waits until all have exited. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const left = [...this.#children];
    for (const child of left) child.kill('closed');
    await Promise.all(left.map((c) => c.exited));
    // A child that exited on its own may leave output unread in a socket: nothing reads it from now on.
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    for (const fn of this.#deferred.splice(0)) fn();
  }
}

/** Turns a child's end into the pair's failure code, or nothing for a clean exit. */
export function exitError(label: string, exit: ChildExit, timeoutMs: number): FidelityError | undefined {
  if (exit.startError !== undefined) {
    return new FidelityError('FFMPEG_BROKEN', `${label} could not be started: ${exit.startError}`);
  }
  if (exit.reason === 'aborted') return new FidelityError('ABORTED', 'The measurement was cancelled');
  if (exit.reason === 'timeout') {
    return new FidelityError('DECODE_TIMEOUT', `${label} did not finish within ${timeoutMs} ms and was killed`);
  }
  if (exit.reason === 'closed') return new FidelityError('ABORTED', `${label} was stopped`);
  if (exit.code === 0) return undefined;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return new FidelityError('UNDECODABLE', `${label} ${how}${exit.stderr ? `: ${exit.stderr}` : ''}`);
}

/**
 * A failure of one process that read several files (a pair's decoder): `inputs` are the indices of
 * the files it is about, by ffmpeg's messages ({@link failedInputs}).
 */
export class InputsFailure extends FidelityError {
  readonly inputs: number[];

  constructor(code: string, message: string, inputs: number[], cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
    this.inputs = inputs;
  }
}

/**
 * Which inputs a failed process's messages are about: ffmpeg names an input by its file name
 * ("FILE: Invalid data found when processing input") or by its index ("Error while decoding stream
 * #1:0"). Every input when none or all are named, or when two inputs are one file.
 */
export function failedInputs(stderr: string, files: readonly string[]): number[] {
  const every = files.map((_, i) => i);
  if (files.length < 2 || new Set(files).size < files.length) return every;
  const named = every.filter((i) => stderr.includes(`${files[i]}:`) || new RegExp(`#${i}:\\d`).test(stderr));
  return named.length === 0 ? every : named;
}

/**
 * The failure of a process that read `inputs` (in its `-i` order), or undefined for a clean exit:
 * exitError's, and for several inputs (but an abort) an {@link InputsFailure} whose message starts
 * with the labels of the inputs it is about ("candidate: ffmpeg ... exited with code 1: ...").
 */
export async function inputsExitError(
  what: string,
  child: Child,
  inputs: readonly { file: string; label: string }[],
  timeoutMs: number,
): Promise<FidelityError | undefined> {
  const exit = await child.exited;
  const error = exitError(what, exit, timeoutMs);
  if (!error || inputs.length < 2 || error.code === 'ABORTED') return error;
  // What ffmpeg said names the file; a time limit or a start that failed is the process's, so every file's.
  const named = error.code === 'UNDECODABLE' ? failedInputs(exit.stderr, inputs.map((i) => i.file)) : inputs.map((_, i) => i);
  return new InputsFailure(error.code, `${named.map((i) => inputs[i]!.label).join(' and ')}: ${error.message}`, named, error);
}

/** Runs a child to completion and returns its stdout (for ffprobe: small JSON). */
export async function runToString(scope: ProcessScope, file: string, args: string[], options: Omit<SpawnOptions, 'pipes'>): Promise<string> {
  const child = scope.spawn(file, args, { ...options, pipes: [1] });
  const chunks: Buffer[] = [];
  child.pipe(1).on('data', (chunk: Buffer) => chunks.push(chunk));
  const exit = await child.exited;
  const error = exitError(options.label, exit, options.timeoutMs);
  if (error) throw error;
  return Buffer.concat(chunks).toString('utf8');
}
