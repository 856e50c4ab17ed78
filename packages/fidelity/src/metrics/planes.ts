/** Argument checks shared by the per-frame metric functions. */
import { FidelityError, invalidParameter } from '../errors.js';

export function checkPlane(name: string, plane: unknown, width: number, height: number, channels = 1): asserts plane is Uint8Array {
  if (!(plane instanceof Uint8Array)) throw invalidParameter(name, 'a Uint8Array', plane);
  const expected = width * height * channels;
  if (plane.length !== expected) {
    throw invalidParameter(`${name}.length`, `${expected} (${width}x${height}${channels > 1 ? `x${channels}` : ''})`, plane.length);
  }
}

export function checkSize(width: unknown, height: unknown): void {
  if (!Number.isInteger(width) || (width as number) <= 0) throw invalidParameter('width', 'a positive integer', width);
  if (!Number.isInteger(height) || (height as number) <= 0) throw invalidParameter('height', 'a positive integer', height);
}

/** A metric whose window does not fit in the frame has no value: refused rather than invented. */
export function tooSmall(metric: string, width: number, height: number, minimum: string): FidelityError {
  return new FidelityError('FRAME_TOO_SMALL', `${metric} needs a plane of at least ${minimum} but received ${width}x${height}`);
}
