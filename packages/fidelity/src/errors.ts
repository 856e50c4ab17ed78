/**
 * One error class for the whole library. Every refusal carries a stable reason
 * code from the catalogue below, so tools can branch on `code` and people can
 * read `message`; the original failure, when there is one, stays in `cause`.
 */

export const ReasonCodes = {
  // Setup
  FFMPEG_NOT_FOUND: 'no usable ffmpeg/ffprobe binary was found',
  FFMPEG_BROKEN: 'an ffmpeg/ffprobe binary was found but does not run',
  INVALID_ARGUMENT: 'a parameter has the wrong type or value',
  INTERNAL: 'an unexpected internal failure',
  ABORTED: 'the operation was cancelled',
} as const;

export type KnownReasonCode = keyof typeof ReasonCodes;

/** Where a problem was found: a file of the archive, and optionally a line or a JSON path. */
export interface ProblemLocation {
  file?: string;
  line?: number;
  path?: string;
}

export interface Problem {
  code: string;
  message: string;
  where?: ProblemLocation;
}

export class FidelityError extends Error {
  override readonly name = 'FidelityError';
  readonly code: string;
  /** Every problem found, when the refusal has more than one reason (verification, comparison). */
  readonly problems: Problem[];

  constructor(code: string, message: string, options: { cause?: unknown; problems?: Problem[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.problems = options.problems ?? [{ code, message }];
  }
}

export function isFidelityError(value: unknown): value is FidelityError {
  return value instanceof FidelityError;
}

/** sharp's convention: every invalid parameter gets the same shaped message. */
export function invalidParameter(name: string, expected: string, received: unknown): FidelityError {
  const shown = typeof received === 'string' ? JSON.stringify(received) : String(received);
  return new FidelityError('INVALID_ARGUMENT', `Expected ${expected} for ${name} but received ${shown}`);
}
