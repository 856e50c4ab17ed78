/**
 * generated_at, the one field of a report or partial that would otherwise
 * differ between two runs of the same inputs. SOURCE_DATE_EPOCH is the
 * reproducible-builds.org convention: whole seconds since 1970 UTC; a
 * malformed value is refused rather than ignored, as that convention asks.
 */
import { FidelityError } from './errors.js';

/** The time SOURCE_DATE_EPOCH names in `env`; undefined when it is unset or empty. */
export function sourceDateEpoch(env: NodeJS.ProcessEnv = process.env): Date | undefined {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return undefined;
  const seconds = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  const date = new Date(seconds * 1000);
  if (!Number.isFinite(seconds) || Number.isNaN(date.getTime())) {
    throw new FidelityError('SOURCE_DATE_EPOCH_INVALID', `SOURCE_DATE_EPOCH=${JSON.stringify(raw)} is not a whole number of seconds since 1970-01-01 UTC; unset it or fix it`);
  }
  return date;
}

/** The caller's time if given, else SOURCE_DATE_EPOCH, else now. */
export function resolveGeneratedAt(given: Date | undefined, env: NodeJS.ProcessEnv = process.env): Date {
  if (given !== undefined) {
    if (!(given instanceof Date) || Number.isNaN(given.getTime())) throw new FidelityError('INVALID_ARGUMENT', `Expected a valid Date for options.generatedAt but received ${String(given)}`);
    return given;
  }
  return sourceDateEpoch(env) ?? new Date();
}
