/**
 * What the owner of a helper thread (frame-helpers.ts, ssim-helper.ts) waits
 * on: the first failure, which every later wait throws, and one wake-up for
 * every message or failure. A wait re-checks its own condition each time it
 * wakes, so one wake serves every waiter whatever it waits for.
 */
import { FidelityError, isFidelityError } from '../errors.js';

/** A helper's report of its own failure, as its thread posts it. */
export interface HelperErrorMessage {
  type: 'error';
  code: string;
  message: string;
  stack: string | undefined;
}

/** What a helper thread posts for `error`, whatever was thrown (a non-FidelityError is INTERNAL). */
export function helperErrorMessage(error: unknown): HelperErrorMessage {
  const e = error as Error | undefined;
  return { type: 'error', code: isFidelityError(error) ? error.code : 'INTERNAL', message: e?.message ?? String(error), stack: e?.stack };
}

/** The error a helper thread reported, with its stack. */
export function helperError(message: HelperErrorMessage): FidelityError {
  const error = new FidelityError(message.code, message.message);
  if (message.stack) error.stack = message.stack;
  return error;
}

/** The first failure of a helper and the waits on it (see the file comment). */
export class HelperSignal {
  #failure: Error | null = null;
  #waiters: (() => void)[] = [];

  /** Wakes every wait, to re-check its condition. */
  wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Records `error` unless a failure came first, and wakes every wait. */
  fail(error: Error): void {
    this.#failure ??= error;
    this.wake();
  }

  /** Resolves once `ready()` holds; throws the first failure, also one recorded while waiting. */
  async until(ready: () => boolean): Promise<void> {
    while (!this.#failure && !ready()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (this.#failure) throw this.#failure;
  }
}
