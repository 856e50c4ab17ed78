/**
 * measureMediaJobs analyses each distinct clip (by sealed SHA-256) once per command: a pair is
 * given the analyses earlier pairs made of its bytes (PairJob.known), and a pair whose clip another
 * running pair is analysing waits behind one that is free. The pool is a stand-in here that
 * records what each job was given: this is the scheduling alone; that a given analysis is used as
 * is, and gives the same outcome, is test/pool/same-media.test.ts, and that the report's bytes do
 * not depend on the thread count is test/shard/merge.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import type { PairJob } from '../../src/pool/api.js';

const given = vi.hoisted(() => new Map<string, string[]>());
vi.mock('../../src/pool/pool.js', () => ({
  createSharingPool: () => ({
    measure: async (job: PairJob) => {
      given.set(job.id, Object.entries(job.known ?? {}).map(([side, a]) => `${side}=${(a as unknown as { from: string }).from}`));
      // The slow pair keeps one lane busy while the other lane runs the rest in order.
      await new Promise((resolve) => setTimeout(resolve, job.id === 'slow' ? 150 : 10));
      if (job.id === 'broken') return { ok: false, failure: { code: 'UNDECODABLE', message: 'ffmpeg could not decode it' } };
      const analysis = (file: string) => ({ from: `${job.id}:${file}` });
      return { ok: true, measurement: { clips: { baseline: analysis(job.baseline), candidate: analysis(job.candidate) } } };
    },
    analyse: async (job: { id: string; file: string }) => {
      analysedAlone.push(job.file);
      return { ok: true, clip: { from: `alone:${job.file}` } };
    },
    destroy: async () => {},
  }),
}));
const analysedAlone = vi.hoisted(() => [] as string[]);

const { measureMedia, measureMediaJobs } = await import('../../src/comparison/measure.js');

const job = (id: string, baseline: string, candidate: string) => ({
  id,
  baseline: async () => `${baseline}.mp4`,
  candidate: async () => `${candidate}.mp4`,
  sha256: { baseline: `sha-${baseline}`, candidate: `sha-${candidate}` },
});

describe('each distinct clip analysed once per command', () => {
  it('later pairs are given the analyses of their clips; a pair waits behind a free one rather than analyse a clip twice', async () => {
    given.clear();
    const jobs = [job('first', 'A', 'B'), job('second', 'A', 'C'), job('slow', 'D', 'E'), job('last', 'C', 'A')];
    const outcomes = await measureMediaJobs(jobs, 12, { threads: 2 });
    expect([...outcomes.keys()].sort()).toEqual(['first', 'last', 'second', 'slow']);
    // `second` waited while `first` analysed A (the free `slow` went first); `last` got both of its clips.
    expect(Object.fromEntries(given)).toEqual({
      first: [],
      slow: [],
      second: ['baseline=first:A.mp4'],
      last: ['baseline=second:C.mp4', 'candidate=first:A.mp4'],
    });
  });

  it('without sealed SHA-256s every pair analyses its own clips', async () => {
    given.clear();
    const jobs = [job('first', 'A', 'B'), job('second', 'A', 'C')].map(({ sha256: _none, ...j }) => j);
    await measureMediaJobs(jobs, 12, { threads: 1 });
    expect(Object.fromEntries(given)).toEqual({ first: [], second: [] });
  });

  it('a pair that failed gives no analysis: the next pair with its clip analyses it', async () => {
    given.clear();
    const outcomes = await measureMediaJobs([job('broken', 'A', 'B'), job('second', 'A', 'C'), job('third', 'C', 'A')], 12, { threads: 1 });
    expect(outcomes.get('broken')!.ok).toBe(false);
    expect(Object.fromEntries(given)).toEqual({ broken: [], second: [], third: ['baseline=second:C.mp4', 'candidate=second:A.mp4'] });
  });

  it('after the pairs, each clip no pair analysed is analysed on its own in the pool, once per distinct file', async () => {
    given.clear();
    analysedAlone.length = 0;
    const clip = (name: string) => ({ sha256: `sha-${name}`, file: async () => `${name}.mp4` });
    // B is only in the broken pair; D has no pair; E is given twice (two slots, one file); A and C were analysed by `second`.
    const measured = await measureMedia([job('broken', 'A', 'B'), job('second', 'A', 'C')], [clip('A'), clip('B'), clip('C'), clip('D'), clip('E'), clip('E')], 12, { threads: 2 });
    expect(analysedAlone.sort()).toEqual(['B.mp4', 'D.mp4', 'E.mp4']);
    expect([...measured.clips.keys()].sort()).toEqual(['sha-B', 'sha-D', 'sha-E']);
    expect([...measured.outcomes.keys()].sort()).toEqual(['broken', 'second']);
  });
});
