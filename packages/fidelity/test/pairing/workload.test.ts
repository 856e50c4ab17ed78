import { describe, expect, it } from 'vitest';
import { workloadDifferences, workloadProblems } from '../../src/pairing/workload.js';
import type { PlanJson } from '../../src/schemas/run-archive.js';

const plan: PlanJson = {
  plan_id: 'p1',
  model: { id: 'org/model', revision: 'r1' },
  video: { width: 128, height: 72, fps: 12, frames: 12 },
  audio: { sample_rate: 32000, channels: 2 },
  warmup_runs: 1,
  repetitions: 1,
  cases: ['a', 'b', 'c', 'd'].map((id, i) => ({ case_id: id, prompt: `prompt ${id}`, seed: 11 + i })),
};

const edit = (f: (p: PlanJson) => void): PlanJson => {
  const copy = structuredClone(plan);
  f(copy);
  return copy;
};

describe('workloadDifferences', () => {
  it('finds nothing between equal plans, and ignores warmup_runs', () => {
    expect(workloadDifferences(plan, structuredClone(plan))).toEqual([]);
    expect(workloadDifferences(plan, edit((p) => (p.warmup_runs = 3)))).toEqual([]);
  });

  it('names each differing field by its JSON path', () => {
    const other = edit((p) => {
      p.video.fps = 24;
      p.model.revision = 'r2';
      p.cases[3]!.seed = 99;
      p.cases[1]!.prompt = 'changed';
    });
    expect(workloadDifferences(plan, other).map((d) => d.field)).toEqual(['model.revision', 'video.fps', 'cases[1].prompt', 'cases[3].seed']);
  });

  it('names a different case order and a different case count', () => {
    const swapped = edit((p) => p.cases.reverse());
    expect(workloadDifferences(plan, swapped).map((d) => d.field)).toContain('cases[0].case_id');
    const longer = edit((p) => p.cases.push({ case_id: 'e', prompt: 'e', seed: 1 }));
    expect(workloadDifferences(plan, longer).map((d) => d.field)).toEqual(['cases.length', 'cases[4]']);
  });

  it('treats a different repetition count as a different workload', () => {
    expect(workloadDifferences(plan, edit((p) => (p.repetitions = 2))).map((d) => d.field)).toEqual(['repetitions']);
  });

  it('gives one PLAN_MISMATCH problem per field, with both values', () => {
    const problems = workloadProblems(plan, edit((p) => (p.plan_id = 'p2')), 'cand');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'PLAN_MISMATCH', where: { path: 'plan_id', file: 'cand/plan.json' } });
    expect(problems[0]!.message).toContain('"p1"');
    expect(problems[0]!.message).toContain('"p2"');
  });
});
