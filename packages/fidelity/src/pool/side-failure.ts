/**
 * Which side a pair's failure is about, and which failure is reported when
 * several happen: the rules every part of a pair's measurement (the frame
 * loop, the sample loop, the probes) follows, so a report names the same
 * side and the same code whatever the timing of the processes.
 */
import { FidelityError, isFidelityError } from '../errors.js';
import { InputsFailure } from '../media/process.js';
import type { ProcessScope } from '../media/process.js';
import type { FailureSide, MeasureOutcome } from '../schemas/measurement.js';
import { MeasureFailureCodes } from './api.js';

const FAILURE_CODES: ReadonlySet<string> = new Set(MeasureFailureCodes);

/** A pair failure about one file (or both): the report names that side. */
export class SideFailure extends FidelityError {
  /** The file(s) the failure is about, as the report names them. */
  readonly side: FailureSide;

  constructor(code: string, message: string, side: FailureSide, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
    this.side = side;
  }
}

/** Both sides settle before one error is chosen, baseline first, so the reason does not depend on timing. */
export async function bothSides<T>(a: Promise<T>, b: Promise<T>): Promise<[T, T]> {
  const [x, y] = await Promise.allSettled([a, b]);
  // Each side failed the same way on its own (no video stream on either): the failure is both sides'.
  if (x.status === 'rejected' && y.status === 'rejected' && x.reason instanceof SideFailure && y.reason instanceof SideFailure && x.reason.side === 'baseline' && y.reason.side === 'candidate' && x.reason.code === y.reason.code) {
    throw new SideFailure(x.reason.code, `${x.reason.message}; ${y.reason.message}`, 'both', x.reason);
  }
  if (x.status === 'rejected') throw x.reason;
  if (y.status === 'rejected') throw y.reason;
  return [x.value, y.value];
}

/**
 * Runs video and audio side by side. The first failure is the cause: it
 * stops every child at once, so the other part ends quickly (with a failure
 * of its own that is only the consequence, and is dropped).
 */
export async function firstFailureWins<A, B>(scope: ProcessScope, a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  let cause: { error: unknown } | null = null;
  const watch = <T>(p: Promise<T>): Promise<T> =>
    p.catch((error: unknown) => {
      if (!cause) {
        cause = { error };
        void scope.close();
      }
      throw error;
    });
  const [x, y] = await Promise.allSettled([watch(a), watch(b)]);
  if (cause) throw (cause as { error: unknown }).error;
  return [(x as PromiseFulfilledResult<A>).value, (y as PromiseFulfilledResult<B>).value];
}

/** The side of a failure of the process that decodes both files: the file(s) ffmpeg's messages name. */
const SIDES_OF_INPUTS: Record<string, FailureSide> = { '0': 'baseline', '1': 'candidate' };

/**
 * Failures of one side's probe or decoder carry that side; a failure of the process that decodes both
 * files, the side its messages name ('both' when they name both or neither); a cancellation is nobody's.
 */
export function blame<T>(side: FailureSide, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if (!isFidelityError(error) || error instanceof SideFailure || error.code === 'ABORTED') throw error;
    const named = error instanceof InputsFailure ? (SIDES_OF_INPUTS[error.inputs.join(',')] ?? 'both') : side;
    throw new SideFailure(error.code, error.message, named, error);
  });
}

/** A failure of the one decode that stands for both sides (the same bytes): it is both sides'. */
export function onBoth<T>(work: Promise<T>): Promise<T> {
  return blame('both', work).catch((error: unknown) => {
    throw error instanceof SideFailure && error.side !== 'both' ? new SideFailure(error.code, error.message, 'both', error) : error;
  });
}

/** The side whose decoder ended early is the one named, with the count it reached. */
export function endedEarly(what: string, side: FailureSide, got: number, expected: number): SideFailure {
  const who = side === 'both' ? 'baseline and candidate' : side;
  return new SideFailure('UNDECODABLE', `${who}: ffmpeg decoded ${got} ${what} where the container lists ${expected}`, side);
}

/** A pair failure as measuring reports it (a side when it is one file's), or null for an error no pair could get past. */
export function pairFailure(error: unknown): MeasureOutcome | null {
  if (isFidelityError(error) && FAILURE_CODES.has(error.code)) {
    const side = error instanceof SideFailure ? { side: error.side } : {};
    return { ok: false, failure: { code: error.code, message: error.message, ...side } };
  }
  return null;
}
