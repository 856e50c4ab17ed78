/**
 * Reading calibration.json back (compare --calibration): its schema is the
 * whole check; a file that fails it is refused with CALIBRATION_INVALID and
 * the first problem named, never half-used.
 */
import { z } from 'zod';
import { FidelityError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { SIDE_FILE_LIMITS } from '../side-file.js';
import { Calibration } from './schema.js';

/** Validates a calibration object (e.g. one a tool built in memory). */
export function parseCalibration(value: unknown, label = 'calibration'): Calibration {
  const result = Calibration.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new FidelityError('CALIBRATION_INVALID', `${label}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'fails its schema'}`);
}

/** Reads and validates calibration.json. */
export async function loadCalibration(file: string): Promise<Calibration> {
  const { value, label } = await readJsonFile(file, 'CALIBRATION_INVALID', 'calibration file', SIDE_FILE_LIMITS.calibration);
  return parseCalibration(value, label);
}

/** calibration.schema.json: the JSON Schema of the file, generated from the zod schema. */
export function calibrationJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(Calibration), null, 2)}\n`;
}
