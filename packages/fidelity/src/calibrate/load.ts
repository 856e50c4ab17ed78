/**
 * Reading calibration.json back (compare --calibration). The file comes from
 * elsewhere, so its schema is not the whole check: it must also agree with
 * itself (calibrationProblems) before any verdict is drawn from it. A file
 * that fails either is refused with CALIBRATION_INVALID and the first problem
 * named, never half-used.
 */
import { z } from 'zod';
import { FidelityError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { SIDE_FILE_LIMITS } from '../side-file.js';
import { CALIBRATED_METRICS } from './metrics.js';
import { Calibration } from './schema.js';
import { byCount, counted } from '../words.js';

/**
 * What makes a schema-valid calibration contradict itself, first problem
 * first: `n` is the number of pairs and of every video metric's values (every
 * pair has video; an audio metric may have fewer, pairs without audio), each
 * metric is one this tool calibrates with its own `worse`, and its values are
 * in range and sorted ascending with null (+infinity) last, as calibrate()
 * writes them. `n = 100000` over 3 values would hide the "sample too small"
 * note; `n = 0` over values would call pairs beyond noise from nothing.
 */
export function calibrationProblems(c: Calibration): string[] {
  const problems: string[] = [];
  if (c.n !== c.pairs.length) problems.push(`n = ${c.n}, but ${counted(c.pairs.length, 'pair')} ${byCount(c.pairs.length, 'is', 'are')} listed`);
  if (new Set(c.pairs.map((p) => p.id)).size !== c.pairs.length) problems.push('a pair is listed twice');
  for (const [key, metric] of Object.entries(c.metrics)) {
    const known = CALIBRATED_METRICS.find((m) => m.key === key);
    if (!known) {
      problems.push(`metrics.${key}: not a metric this tool calibrates (${CALIBRATED_METRICS.map((m) => m.key).join(', ')})`);
      continue;
    }
    if (metric.worse !== known.worse) problems.push(`metrics.${key}.worse is "${metric.worse}"; for this metric ${known.worse} is worse`);
    const count = metric.values.length;
    if (key.startsWith('video.') ? count !== c.n : count > c.n) {
      problems.push(`metrics.${key} has ${counted(count, 'value')}; n = ${counted(c.n, 'pair')}${key.startsWith('video.') ? ' (every pair has video)' : ' (at most one value per pair)'}`);
    }
    const range = known.range;
    metric.values.forEach((v, i) => {
      if (v === null ? !range.infinite : !(Number.isFinite(v) && v >= range.min && v <= range.max)) {
        problems.push(`metrics.${key}.values[${i}] = ${JSON.stringify(v)} is outside the metric's range`);
      }
      const next = metric.values[i + 1];
      if (next !== undefined && (v === null ? next !== null : next !== null && next < v)) {
        problems.push(`metrics.${key}.values are not sorted ascending with null (+infinity) last (at ${i})`);
      }
    });
  }
  c.ssim_floor_per_frame.forEach((v, i) => {
    if (!(Number.isFinite(v) && v >= -1 && v <= 1)) problems.push(`ssim_floor_per_frame[${i}] = ${v} is not an SSIM`);
  });
  return problems;
}

/** Validates a calibration object (e.g. one a tool built in memory). */
export function parseCalibration(value: unknown, label = 'calibration'): Calibration {
  const result = Calibration.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new FidelityError('CALIBRATION_INVALID', `${label}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'fails its schema'}`);
  }
  const problems = calibrationProblems(result.data);
  if (problems.length > 0) {
    throw new FidelityError('CALIBRATION_INVALID', `${label} contradicts itself: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, {
      problems: problems.map((message) => ({ code: 'CALIBRATION_INVALID', message: `${label}: ${message}` })),
    });
  }
  return result.data;
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
