/**
 * Which pairs a shard takes, the Slurm --array= expression of missing
 * shards, and --shard auto's reading of the scheduler environment.
 */
import { describe, expect, it } from 'vitest';
import { checkShard, parseShard, shardFromEnvironment, shardIndices, slurmArrayExpression } from '../../src/shard/spec.js';

const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'no error';
};

describe('shardIndices', () => {
  it('takes j mod N == K, and together the shards cover every index exactly once', () => {
    expect(shardIndices(20, { index: 1, count: 3 })).toEqual([1, 4, 7, 10, 13, 16, 19]);
    for (const n of [1, 2, 3, 7, 25]) {
      const all = [...Array(n).keys()].flatMap((k) => shardIndices(20, { index: k, count: n })).sort((a, b) => a - b);
      expect(all).toEqual([...Array(20).keys()]);
    }
  });

  it('gives an empty list to a shard past the last pair', () => {
    expect(shardIndices(5, { index: 6, count: 7 })).toEqual([]);
  });
});

describe('slurmArrayExpression', () => {
  it('writes runs of consecutive indices as ranges', () => {
    expect(slurmArrayExpression([3, 7, 8, 9])).toBe('3,7-9');
    expect(slurmArrayExpression([9, 0, 1, 5, 6])).toBe('0-1,5-6,9');
    expect(slurmArrayExpression([4])).toBe('4');
  });
});

describe('parseShard and checkShard', () => {
  it('accepts K/N with 0 <= K < N only', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard('6/7')).toEqual({ index: 6, count: 7 });
    for (const bad of ['7/7', '1/0', '-1/3', '1', 'a/b', '1/3/4', ' 1/3']) expect(codeOf(() => parseShard(bad)), bad).toBe('USAGE');
    expect(codeOf(() => checkShard({ index: 2, count: 2 }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => checkShard({ index: 0.5, count: 2 }))).toBe('INVALID_ARGUMENT');
  });
});

describe('shardFromEnvironment (--shard auto)', () => {
  const slurm = (id: number, min: number, max: number, count: number, step = 1): NodeJS.ProcessEnv => ({
    SLURM_ARRAY_TASK_ID: String(id),
    SLURM_ARRAY_TASK_MIN: String(min),
    SLURM_ARRAY_TASK_MAX: String(max),
    SLURM_ARRAY_TASK_COUNT: String(count),
    SLURM_ARRAY_TASK_STEP: String(step),
  });

  it('reads a Slurm array, subtracting its first index', () => {
    expect(shardFromEnvironment(slurm(2, 0, 2, 3))).toEqual({ index: 2, count: 3, source: 'slurm' });
    expect(shardFromEnvironment(slurm(1, 1, 10, 10))).toEqual({ index: 0, count: 10, source: 'slurm' });
  });

  it('with --shards N takes the Slurm array index as the shard index (a rerun of --array=3,7-9)', () => {
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '3', SLURM_ARRAY_TASK_MAX: '9', SLURM_ARRAY_TASK_COUNT: '4' }, 10)).toEqual({
      index: 7,
      count: 10,
      source: 'slurm',
    });
    expect(codeOf(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '10' }, 10))).toBe('SHARD_ENV_INCONSISTENT');
  });

  it('refuses a gapped or stepped array without --shards, never guessing', () => {
    expect(codeOf(() => shardFromEnvironment(slurm(7, 3, 9, 4)))).toBe('SHARD_ENV_INCONSISTENT');
    expect(codeOf(() => shardFromEnvironment(slurm(4, 0, 6, 4, 2)))).toBe('SHARD_ENV_INCONSISTENT');
    expect(codeOf(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1' }))).toBe('SHARD_ENV_INCONSISTENT');
    expect(codeOf(() => shardFromEnvironment({ ...slurm(1, 0, 2, 3), SLURM_ARRAY_TASK_COUNT: 'three' }))).toBe('SHARD_ENV_INCONSISTENT');
  });

  it('reads a Kubernetes Indexed Job, whose count comes from --shards', () => {
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: '4' }, 5)).toEqual({ index: 4, count: 5, source: 'kubernetes' });
    expect(codeOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '4' }))).toBe('SHARD_ENV_INCONSISTENT');
    expect(codeOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '5' }, 5))).toBe('SHARD_ENV_INCONSISTENT');
  });

  it('refuses both schedulers at once, and neither', () => {
    expect(codeOf(() => shardFromEnvironment({ ...slurm(0, 0, 1, 2), JOB_COMPLETION_INDEX: '0' }, 2))).toBe('SHARD_ENV_INCONSISTENT');
    expect(codeOf(() => shardFromEnvironment({}))).toBe('SHARD_ENV_MISSING');
    expect(codeOf(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '' }, 3))).toBe('SHARD_ENV_MISSING');
  });
});
