import { describe, expect, it } from 'vitest';
import { deriveServerTiming } from '../../src/timing/derive.js';
import { ServerTimingReport } from '../../src/timing/schemas.js';
import { timingSideBySide } from '../../src/timing/side-by-side.js';
import type { RunRecord, ServerTiming } from '../../src/schemas/run-archive.js';

const CLOCK = 'linux:0b1c:CLOCK_MONOTONIC';
const MS = 1_000_000; // ns

/** Stamps from a base and four stage lengths in ms. */
function stamps(base: number, stages: [number, number, number, number], clock = CLOCK): ServerTiming {
  const [pre, queue, exec, post] = stages;
  return {
    clock_id: clock,
    http_received_ns: base,
    http_accepted_ns: base + pre * MS,
    scheduler_dispatch_ns: base + (pre + queue) * MS,
    forward_finished_ns: base + (pre + queue + exec) * MS,
    media_ready_ns: base + (pre + queue + exec + post) * MS,
  };
}

function rec(slot: string, timing: ServerTiming | null | undefined, kind: RunRecord['kind'] = 'measurement', status: RunRecord['status'] = 'ok'): RunRecord {
  const r: RunRecord = { slot_id: slot, kind, case_id: 'c', prompt: 'p', seed: 1, repetition: 0, status, media: null, latency_s: null };
  return timing === undefined ? r : { ...r, server_timing: timing };
}

describe('deriveServerTiming', () => {
  it('derives the five durations by hand', () => {
    const t = deriveServerTiming([rec('measurement-r000-c000', stamps(5_000_000_000, [2, 30, 60_000, 1500]))]);
    expect(t.records[0]).toEqual({
      slot_id: 'measurement-r000-c000',
      kind: 'measurement',
      status: 'ok',
      available: true,
      reason: null,
      clock_id: CLOCK,
      prequeue_ms: 2,
      queue_delay_ms: 30,
      execution_ms: 60_000,
      postprocess_ms: 1500,
      server_ready_ms: 61_532,
    });
    expect(t.clock_id).toBe(CLOCK);
    expect(t.available).toBe(true);
    expect(t.reasons).toEqual([]);
    expect(ServerTimingReport.parse(t)).toEqual(t);
  });

  it('summarises ok measurement records only: min, median, p90, max, mean', () => {
    const queues = [10, 40, 20, 30, 50];
    const records = [
      rec('warmup-000', stamps(0, [1, 9999, 1, 1]), 'warmup'),
      ...queues.map((q, i) => rec(`measurement-r000-c00${i}`, stamps(i * 1e12, [1, q, 100, 1]))),
      rec('measurement-r000-c005', stamps(0, [1, 9999, 1, 1]), 'measurement', 'failed'),
    ];
    const t = deriveServerTiming(records);
    expect(t.summary.records).toBe(5);
    expect(t.summary.available).toBe(5);
    // Sorted 10 20 30 40 50: median 30; p90 at rank 3.6 -> 40 + 0.6 * 10 = 46.
    expect(t.summary.queue_delay_ms).toEqual({ n: 5, min: 10, median: 30, p90: 46, max: 50, mean: 30 });
    expect(t.summary.execution_ms).toEqual({ n: 5, min: 100, median: 100, p90: 100, max: 100, mean: 100 });
    // The warmup and the failed record still get their own figures.
    expect(t.records[0]!.queue_delay_ms).toBe(9999);
    expect(t.records[6]!.available).toBe(true);
  });

  it('absent timing is unavailable: null figures, never 0', () => {
    const t = deriveServerTiming([rec('measurement-r000-c000', null), rec('measurement-r000-c001', undefined)]);
    for (const r of t.records) {
      expect(r.available).toBe(false);
      expect(r.reason).toBe('TIMING_ABSENT');
      expect([r.prequeue_ms, r.queue_delay_ms, r.execution_ms, r.postprocess_ms, r.server_ready_ms]).toEqual([null, null, null, null, null]);
    }
    expect(t.available).toBe(false);
    expect(t.clock_id).toBeNull();
    expect(t.reasons).toEqual(['TIMING_ABSENT']);
    expect(t.summary.server_ready_ms).toBeNull();
  });

  it('drops a record whose stamps decrease', () => {
    const backwards = { ...stamps(0, [1, 1, 1, 1]), forward_finished_ns: 0 };
    const t = deriveServerTiming([rec('measurement-r000-c000', backwards), rec('measurement-r000-c001', stamps(0, [1, 2, 3, 4]))]);
    expect(t.records[0]).toMatchObject({ available: false, reason: 'TIMING_NOT_MONOTONIC', execution_ms: null });
    expect(t.records[1]).toMatchObject({ available: true, server_ready_ms: 10 });
    expect(t.reasons).toEqual(['TIMING_NOT_MONOTONIC']);
    expect(t.summary.available).toBe(1);
  });

  it('allows equal consecutive stamps (non-decreasing)', () => {
    const t = deriveServerTiming([rec('measurement-r000-c000', stamps(0, [0, 0, 5, 0]))]);
    expect(t.records[0]).toMatchObject({ available: true, prequeue_ms: 0, queue_delay_ms: 0, execution_ms: 5 });
  });

  it('drops every figure of a run whose records use two clocks', () => {
    const t = deriveServerTiming([
      rec('warmup-000', stamps(0, [1, 1, 1, 1], 'linux:other:CLOCK_MONOTONIC'), 'warmup'),
      rec('measurement-r000-c000', stamps(0, [1, 2, 3, 4])),
      rec('measurement-r000-c001', null),
    ]);
    expect(t.available).toBe(false);
    expect(t.clock_id).toBeNull();
    expect(t.clock_ids).toEqual([CLOCK, 'linux:other:CLOCK_MONOTONIC']);
    expect(t.records.map((r) => r.reason)).toEqual(['TIMING_CLOCK_MISMATCH', 'TIMING_CLOCK_MISMATCH', 'TIMING_ABSENT']);
    expect(t.reasons).toEqual(['TIMING_ABSENT', 'TIMING_CLOCK_MISMATCH']);
    expect(t.summary.execution_ms).toBeNull();
  });
});

describe('timingSideBySide', () => {
  it('puts runs next to each other with no outcome', () => {
    const fast = deriveServerTiming([rec('measurement-r000-c000', stamps(0, [1, 2, 3, 4]))]);
    const none = deriveServerTiming([rec('measurement-r000-c000', null)]);
    const table = timingSideBySide([
      { run_id: 1, run_attempt: 1, gpu_model: 'H200', timing: fast },
      { run_id: 2, run_attempt: 1, gpu_model: 'B200', timing: none },
    ]);
    expect(table.descriptive).toBe(true);
    expect(table.runs.map((r) => [r.gpu_model, r.available, r.reasons])).toEqual([
      ['H200', true, []],
      ['B200', false, ['TIMING_ABSENT']],
    ]);
    expect(table.stages.map((s) => s.stage)).toEqual(['prequeue_ms', 'queue_delay_ms', 'execution_ms', 'postprocess_ms', 'server_ready_ms']);
    expect(table.stages[4]!.values).toEqual([
      { n: 1, median_ms: 10, p90_ms: 10 },
      { n: 0, median_ms: null, p90_ms: null },
    ]);
    expect(JSON.stringify(table)).not.toMatch(/pass|fail/);
  });
});
