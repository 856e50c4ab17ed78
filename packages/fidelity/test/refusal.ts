import { expect } from 'vitest';
import { FidelityError } from '../src/errors.js';

/** The FidelityError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function refusal(promise: Promise<unknown>): Promise<FidelityError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FidelityError);
  return error as FidelityError;
}
