/**
 * The bounds of the numeric options the library and its CLI share, declared once: the library
 * refuses a value outside them with INVALID_ARGUMENT, the CLI's flags (`--threads`,
 * `--decode-timeout`) with USAGE, from these same numbers.
 */
import { invalidParameter } from './errors.js';

/** The inclusive bounds of each shared numeric option; every one is a whole number. */
export const OPTION_BOUNDS = {
  /** Cores to use (`threads`, `--threads`; checkRunMedia's `concurrency` too). */
  threads: { min: 1, max: 256 },
  /**
   * Milliseconds each ffmpeg/ffprobe child may run (`timeoutMs`, `--decode-timeout` in seconds):
   * at most Node's longest timer, 2^31 - 1 ms (about 24.8 days); a longer one would fire at once.
   */
  timeoutMs: { min: 1, max: 2_147_483_647 },
} as const;

/** A shared numeric option's name. */
export type BoundedOption = keyof typeof OPTION_BOUNDS;

/** Whether `value` is a whole number within `option`'s bounds. */
export function withinBounds(option: BoundedOption, value: unknown): value is number {
  const { min, max } = OPTION_BOUNDS[option];
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Refuses a given value of `option` outside its bounds; undefined (not given) passes.
 *
 * @throws FidelityError `INVALID_ARGUMENT` naming `name` (e.g. `options.timeoutMs`), the bounds and the value.
 */
export function checkBounded(option: BoundedOption, value: unknown, name = `options.${option}`): void {
  if (value === undefined || withinBounds(option, value)) return;
  const { min, max } = OPTION_BOUNDS[option];
  throw invalidParameter(name, `an integer from ${min} to ${max}`, value);
}
