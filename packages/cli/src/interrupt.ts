/**
 * How a command is stopped from outside (docs/report.md, "Stopping a command"): SIGINT (Ctrl-C),
 * SIGTERM (`timeout`, CI cancel, `docker stop`) and SIGHUP (the terminal went
 * away) all abort the command's AbortSignal; the library then kills its
 * ffmpeg/ffprobe children, removes its temp files and leaves `--out` as it
 * was, and the command exits 128 + the signal's number (130 / 143 / 129).
 *
 * A command that has not stopped `graceMs` after the signal, or a second
 * signal (more than a second after the first: `timeout` signals the process
 * and then its whole group), ends the process at once: the library's exit
 * hooks still remove its temp folders, its --out lock and temp bundle, and
 * kill its children's process groups.
 *
 * A closed stdout (`fidelity verify run --json | head -c 0`) is not an error
 * to print: the command is aborted like a SIGPIPE would end it, quietly, and
 * exits 141 (128 + SIGPIPE).
 */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT;
/** 128 + SIGPIPE: what a shell reports for a writer whose reader went away. */
export const EXIT_PIPE_CLOSED = 141;
/** A signal repeated within this time is the same stop (sent to the process and to its group). */
const REPEAT_MS = 1000;
/** How long an interrupted command may take to clean up before the process is ended for it. */
export const DEFAULT_GRACE_MS = 10_000;

export interface Interrupt {
  /** Aborted by the first signal or by a closed stdout. */
  readonly signal: AbortSignal;
  /** The signal that stopped the command, if one did. */
  readonly stoppedBy: StopSignal | 'EPIPE' | undefined;
  /** The exit code the stop calls for (undefined when nothing stopped the command). */
  readonly exitCode: number | undefined;
  /** Whether stdout was closed by its reader: nothing more may be written there. */
  readonly stdoutClosed: boolean;
  /** Removes the handlers. A pending forced exit stays armed, unref'd: it fires only if something keeps the process alive. */
  dispose(): void;
}

export function listenForInterrupts(options: { graceMs?: number; watchStdout?: boolean } = {}): Interrupt {
  const controller = new AbortController();
  let stoppedBy: StopSignal | 'EPIPE' | undefined;
  let stdoutClosed = false;
  let timer: NodeJS.Timeout | undefined;
  const codeOf = (): number | undefined => (stoppedBy === undefined ? undefined : stoppedBy === 'EPIPE' ? EXIT_PIPE_CLOSED : SIGNAL_EXIT[stoppedBy]);

  let firstAt = 0;
  const onSignal = (sig: StopSignal): void => {
    if (stoppedBy !== undefined && stoppedBy !== 'EPIPE') {
      // `timeout` and a terminal signal the whole process group right after the process itself: one stop, not two.
      if (Date.now() - firstAt < REPEAT_MS) return;
      // A second signal: the user does not want to wait for the clean-up.
      process.exit(SIGNAL_EXIT[sig]);
    }
    stoppedBy = sig;
    firstAt = Date.now();
    controller.abort(new Error(`stopped by ${sig}`));
    timer = setTimeout(() => process.exit(codeOf()), options.graceMs ?? DEFAULT_GRACE_MS);
  };
  const handlers = Object.fromEntries((Object.keys(SIGNAL_EXIT) as StopSignal[]).map((sig) => [sig, () => onSignal(sig)])) as Record<StopSignal, () => void>;
  for (const [sig, handler] of Object.entries(handlers)) process.on(sig, handler);

  let disposed = false;
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    stdoutClosed = true;
    if (error.code !== 'EPIPE') return;
    if (stoppedBy === undefined) stoppedBy = 'EPIPE';
    controller.abort(new Error('stdout was closed'));
    // The usual case: the command's last write failed after it returned its exit code.
    if (disposed && stoppedBy === 'EPIPE') process.exitCode = EXIT_PIPE_CLOSED;
  };
  if (options.watchStdout) {
    process.stdout.on('error', onStdoutError);
    // Diagnostics that cannot be delivered are dropped; they must not crash the command either.
    process.stderr.on('error', () => undefined);
  }

  return {
    signal: controller.signal,
    get stoppedBy() {
      return stoppedBy;
    },
    get exitCode() {
      return codeOf();
    },
    get stdoutClosed() {
      return stdoutClosed;
    },
    dispose() {
      disposed = true;
      for (const [sig, handler] of Object.entries(handlers)) process.removeListener(sig, handler);
      // Keep swallowing stdout errors: a write still queued may fail after the command returned.
      timer?.unref();
    },
  };
}
