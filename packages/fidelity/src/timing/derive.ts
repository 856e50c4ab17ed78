/**
 * Server-side durations per record from `server_timing` stamps. The stamps
 * of one run are comparable only on one clock, so mixed clock ids drop every
 * figure of the run rather than guess which clock is right.
 */
import type { RunRecord, ServerTiming } from '../schemas/run-archive.js';
import { orderTimingReasons, type TimingReasonCode } from './reasons.js';
import { STAMP_ORDER, TIMING_STAGES, type RecordTiming, type ServerTimingReport, type TimingStage } from './schemas.js';
import { summarize } from './stats.js';

const NS_PER_MS = 1e6;

function unavailable(record: RunRecord, reason: TimingReasonCode): RecordTiming {
  return {
    slot_id: record.slot_id,
    kind: record.kind,
    status: record.status,
    available: false,
    reason,
    clock_id: record.server_timing?.clock_id ?? null,
    prequeue_ms: null,
    queue_delay_ms: null,
    execution_ms: null,
    postprocess_ms: null,
    server_ready_ms: null,
  };
}

function isMonotonic(t: ServerTiming): boolean {
  for (let i = 1; i < STAMP_ORDER.length; i++) if (t[STAMP_ORDER[i]!] < t[STAMP_ORDER[i - 1]!]) return false;
  return true;
}

export function deriveRecordTiming(record: RunRecord, clockMismatch: boolean): RecordTiming {
  const t = record.server_timing;
  if (!t) return unavailable(record, 'TIMING_ABSENT');
  if (clockMismatch) return unavailable(record, 'TIMING_CLOCK_MISMATCH');
  if (!isMonotonic(t)) return unavailable(record, 'TIMING_NOT_MONOTONIC');
  const out: RecordTiming = { ...unavailable(record, 'TIMING_ABSENT'), available: true, reason: null };
  for (const s of TIMING_STAGES) out[s.name] = (t[s.to] - t[s.from]) / NS_PER_MS;
  return out;
}

/**
 * The server-timing figures of one run from its records' `server_timing` stamps (prequeue, queue
 * delay, execution, postprocess, server-ready; docs/power-and-timing.md). Descriptive only; records
 * without timing, or with stamps out of order, are counted with their reason.
 */
export function deriveServerTiming(records: readonly RunRecord[]): ServerTimingReport {
  const clockIds = [...new Set(records.flatMap((r) => (r.server_timing ? [r.server_timing.clock_id] : [])))].sort();
  const mismatch = clockIds.length > 1;
  const perRecord = records.map((r) => deriveRecordTiming(r, mismatch));
  // Warmups carry start-up costs and failed requests are not served clips: neither belongs in the summary.
  const basis = perRecord.filter((r) => r.kind === 'measurement' && r.status === 'ok');
  const available = basis.filter((r) => r.available);
  const reasons = new Set<TimingReasonCode>(basis.flatMap((r) => (r.reason ? [r.reason as TimingReasonCode] : [])));
  if (mismatch) reasons.add('TIMING_CLOCK_MISMATCH');
  const stage = (name: TimingStage) => summarize(available.map((r) => r[name]!));
  return {
    available: available.length > 0,
    clock_id: clockIds.length === 1 ? clockIds[0]! : null,
    clock_ids: clockIds,
    reasons: orderTimingReasons(reasons),
    summary_basis: 'ok measurement records',
    summary: {
      records: basis.length,
      available: available.length,
      prequeue_ms: stage('prequeue_ms'),
      queue_delay_ms: stage('queue_delay_ms'),
      execution_ms: stage('execution_ms'),
      postprocess_ms: stage('postprocess_ms'),
      server_ready_ms: stage('server_ready_ms'),
    },
    records: perRecord,
  };
}
