/**
 * The synthetic clock of one run: when each request started and ended, what
 * the server's monotonic clock said at each stage, and the measurement window
 * around them. Every figure comes from a PRNG seeded by the site, so a run's
 * run.json and telemetry are the same on every generation.
 */
import { measurementSlotId, type RunRecord } from '../schemas/run-archive.js';
import type { SynthCase } from './cases.js';
import type { Difference } from './differences.js';
import type { SizeProfile } from './options.js';
import { createPrng, round } from './prng.js';
import type { SiteIdentity } from './sites.js';

export interface SlotPlan {
  slot_id: string;
  kind: 'warmup' | 'measurement';
  case: SynthCase;
  repetition: number;
  difference: Difference;
}

export interface Timeline {
  records: RunRecord[];
  measurementWindow: { start_unix: number; end_unix: number };
  /** Intervals (unix seconds) when the GPUs were busy generating: drives the power draw. */
  busy: { start: number; end: number }[];
  /** Server-side events for telemetry/server_timing.jsonl, in time order. */
  serverEvents: ServerEvent[];
}

export interface ServerEvent {
  clock_id: string;
  t_ns: number;
  event: string;
  request_id: string;
}

const NS = 1e9;

export function slotPlan(cases: SynthCase[], repetitions: number, warmups: number, differenceOf: (c: SynthCase) => Difference): SlotPlan[] {
  const out: SlotPlan[] = [];
  const first = cases[0];
  // Warmups run the first case and are never perturbed: they are not compared.
  for (let w = 0; w < warmups && first; w++) {
    out.push({ slot_id: `warmup-${String(w).padStart(3, '0')}`, kind: 'warmup', case: first, repetition: 0, difference: 'identical' });
  }
  for (let r = 0; r < repetitions; r++) {
    for (const c of cases) out.push({ slot_id: measurementSlotId(r, c.index), kind: 'measurement', case: c, repetition: r, difference: differenceOf(c) });
  }
  return out;
}

export function mediaPath(slotId: string): string {
  return `media/${slotId}.mp4`;
}

export function buildTimeline(site: SiteIdentity, profile: SizeProfile, slots: SlotPlan[]): Timeline {
  const rand = createPrng(`${site.site}/timeline`);
  const clockId = `linux:${site.bootId}:CLOCK_MONOTONIC`;
  const t0 = Date.parse(site.windowStartIso) / 1000;
  const typical = site.latencyPerClipSecond * profile.seconds;
  const timeout = profile.timeoutSecondsPerClipSecond * profile.seconds;
  const monoAt = (unix: number) => Math.round((site.uptimeSeconds + (unix - t0)) * NS);

  const records: RunRecord[] = [];
  const busy: Timeline['busy'] = [];
  const serverEvents: ServerEvent[] = [];
  // Warmups happen before the window opens; count back from t0.
  const warmups = slots.filter((s) => s.kind === 'warmup');
  let warmupStart = t0 - warmups.length * (typical * 1.3 + 2);
  let t = t0 + 1 + round(rand(), 3);

  for (const slot of slots) {
    const base = { slot_id: slot.slot_id, kind: slot.kind, case_id: slot.case.case_id, prompt: slot.case.prompt, seed: slot.case.seed, repetition: slot.repetition };
    if (slot.kind === 'warmup') {
      // First requests compile kernels and fill caches: slower than the rest.
      const latency = round(typical * (1.12 + 0.1 * rand()), 3);
      busy.push({ start: warmupStart, end: warmupStart + latency });
      warmupStart += latency + 2;
      records.push({ ...base, status: 'ok', media: mediaPath(slot.slot_id), latency_s: latency });
      continue;
    }
    const start = round(t, 3);
    const received = monoAt(start) + Math.round(rand() * 2e6);
    const accepted = received + 200_000 + Math.round(rand() * 900_000);
    const dispatched = accepted + 2_000_000 + Math.round(rand() * 18e6);
    if (slot.difference === 'request_failed') {
      const end = round(start + timeout, 3);
      busy.push({ start: start + 0.05, end });
      serverEvents.push(
        { clock_id: clockId, t_ns: received, event: 'http_received', request_id: slot.slot_id },
        { clock_id: clockId, t_ns: accepted, event: 'http_accepted', request_id: slot.slot_id },
        { clock_id: clockId, t_ns: dispatched, event: 'scheduler_dispatch', request_id: slot.slot_id },
        { clock_id: clockId, t_ns: monoAt(end), event: 'client_disconnected', request_id: slot.slot_id },
      );
      records.push({ ...base, status: 'failed', error: `request timed out after ${timeout} s`, media: null, latency_s: null });
      t = end + 0.5 + rand();
      continue;
    }
    const latency = round(typical * (0.96 + 0.08 * rand()), 3);
    const end = round(start + latency, 3);
    const mediaReady = monoAt(end) - Math.round((5 + 20 * rand()) * 1e6);
    const forwardFinished = mediaReady - Math.round(latency * (0.02 + 0.02 * rand()) * NS);
    busy.push({ start: start + (dispatched - received) / NS, end: start + (forwardFinished - received) / NS });
    const timing = {
      clock_id: clockId,
      http_received_ns: received,
      http_accepted_ns: accepted,
      scheduler_dispatch_ns: dispatched,
      forward_finished_ns: forwardFinished,
      media_ready_ns: mediaReady,
    };
    serverEvents.push(
      { clock_id: clockId, t_ns: received, event: 'http_received', request_id: slot.slot_id },
      { clock_id: clockId, t_ns: accepted, event: 'http_accepted', request_id: slot.slot_id },
      { clock_id: clockId, t_ns: dispatched, event: 'scheduler_dispatch', request_id: slot.slot_id },
      { clock_id: clockId, t_ns: forwardFinished, event: 'forward_finished', request_id: slot.slot_id },
      { clock_id: clockId, t_ns: mediaReady, event: 'media_ready', request_id: slot.slot_id },
    );
    records.push({
      ...base,
      status: 'ok',
      media: mediaPath(slot.slot_id),
      latency_s: latency,
      window: { start_unix: start, end_unix: end },
      server_timing: timing,
    });
    t = end + 0.5 + rand();
  }
  const measurementWindow = { start_unix: round(t0, 3), end_unix: round(t - 0.25, 3) };
  return { records, measurementWindow, busy, serverEvents };
}
