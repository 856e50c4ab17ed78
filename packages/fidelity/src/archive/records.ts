/**
 * run.json records against the plan: every planned slot exactly once, in the
 * frozen order (warmup-000.., then measurement-r{rep}-c{case} for every
 * repetition x case), each record naming its plan case, and every ok record's
 * media inside the archive, sealed, and named after its slot.
 */
import { measurementSlotId, WARMUP_SLOT, type PlanJson, type RunRecord } from '../schemas/run-archive.js';
import { describeFault, pathFault } from './entry-path.js';
import { Findings, shown } from './findings.js';
import { isMediaFile } from './layout.js';
import type { ParsedRecord } from './identity.js';
import type { Inventory } from './inventory.js';
import type { SealLine } from './seal.js';
import type { MediaEntry } from './types.js';

const MEASUREMENT_SLOT = /^measurement-r(\d{3})-c(\d{3})$/;

export interface RecordContext {
  plan?: PlanJson;
  /** Absent when run.json is missing or unusable: then neither slots nor media can be judged. */
  records?: ParsedRecord[];
  inventory: Inventory;
  /** Absent when SHA256SUMS is: "not sealed" would then only repeat SEAL_MISSING. */
  seal?: Map<string, SealLine>;
}

export function plannedSlots(plan: PlanJson): string[] {
  const slots: string[] = [];
  for (let w = 0; w < plan.warmup_runs; w++) slots.push(`warmup-${String(w).padStart(3, '0')}`);
  for (let r = 0; r < plan.repetitions; r++) for (let c = 0; c < plan.cases.length; c++) slots.push(measurementSlotId(r, c));
  return slots;
}

/** Returns the media of every ok record whose media checks passed, by slot id. */
export function checkRecords(ctx: RecordContext, findings: Findings): Map<string, MediaEntry> {
  const { plan, records, inventory, seal } = ctx;
  const at = (i: number, field?: string) => ({ file: 'run.json', path: `$.records[${i}]${field ? `.${field}` : ''}` });
  const media = new Map<string, MediaEntry>();
  const referenced = new Set<string>();
  if (!records) return media;

  if (plan) checkSlots(plan, records, findings);

  for (const { index, raw, record } of records) {
    if (!record) {
      // Its schema problem is reported already; its media file is not also "unreferenced".
      const named = (raw as { media?: unknown } | null)?.media;
      if (typeof named === 'string') referenced.add(named);
      continue;
    }
    if (plan) checkAgainstPlan(plan, record, index, findings);

    if (record.status === 'ok') {
      if (record.error) findings.warn('RECORD_OK_WITH_ERROR', `ok record ${shown(record.slot_id)} carries error ${shown(record.error)}`, at(index, 'error'));
      if (record.media === null) {
        findings.error('RECORD_OK_WITHOUT_MEDIA', `record ${shown(record.slot_id)} is ok but names no media`, at(index, 'media'));
      } else {
        const entry = checkMedia(record, record.media, index, inventory, seal, findings);
        if (entry) media.set(record.slot_id, entry);
        referenced.add(record.media);
      }
    } else {
      if (!record.error || record.error.trim() === '') {
        findings.error('RECORD_FAILED_WITHOUT_ERROR', `failed record ${shown(record.slot_id)} has no error string`, at(index, 'error'));
      }
      if (record.media !== null) {
        findings.error('MEDIA_ON_FAILED_RECORD', `failed record ${shown(record.slot_id)} names media ${shown(record.media)}`, at(index, 'media'));
        referenced.add(record.media);
      }
    }

    const w = record.window;
    if (w && w.end_unix < w.start_unix) {
      findings.error('RECORD_WINDOW_INVALID', `record ${shown(record.slot_id)} window ends (${w.end_unix}) before it starts (${w.start_unix})`, at(index, 'window'));
    }
    const t = record.server_timing;
    if (t) {
      const order = [t.http_received_ns, t.http_accepted_ns, t.scheduler_dispatch_ns, t.forward_finished_ns, t.media_ready_ns];
      if (order.some((v, i) => i > 0 && v < order[i - 1]!)) {
        findings.warn('RECORD_SERVER_TIMING_ORDER', `record ${shown(record.slot_id)} server_timing events are not in pipeline order`, at(index, 'server_timing'));
      }
    }
  }

  for (const file of inventory.files.keys()) {
    if (isMediaFile(file) && !referenced.has(file)) {
      findings.error('MEDIA_UNREFERENCED', `${shown(file)} belongs to no record`, { file });
    }
  }
  return media;
}

function checkSlots(plan: PlanJson, records: ParsedRecord[], findings: Findings): void {
  const planned = plannedSlots(plan);
  const plannedSet = new Set(planned);
  const firstIndex = new Map<string, number>();
  let warmups = 0;

  for (const { index, raw } of records) {
    const slot = (raw as { slot_id?: unknown } | null)?.slot_id;
    const kind = (raw as { kind?: unknown } | null)?.kind;
    if (kind === 'warmup') warmups += 1;
    if (typeof slot !== 'string') continue;
    const where = { file: 'run.json', path: `$.records[${index}].slot_id` };
    if (firstIndex.has(slot)) {
      findings.error('SLOT_DUPLICATE', `slot ${shown(slot)} has another record (first at records[${firstIndex.get(slot)}]); a retry never replaces a record`, where);
      continue;
    }
    firstIndex.set(slot, index);
    const isWarmupName = WARMUP_SLOT.test(slot);
    const isMeasurementName = MEASUREMENT_SLOT.test(slot);
    if (kind === 'warmup' && !isWarmupName) {
      findings.error('WARMUP_NAME', `warmup record ${shown(slot)} is not named warmup-NNN`, where);
    } else if (!isWarmupName && !isMeasurementName) {
      findings.error('SLOT_ID_INVALID', `slot_id ${shown(slot)} is neither warmup-NNN nor measurement-rNNN-cNNN`, where);
    } else if ((kind === 'warmup' && isMeasurementName) || (kind === 'measurement' && isWarmupName)) {
      findings.error('RECORD_KIND_MISMATCH', `record ${shown(slot)} has kind ${shown(String(kind))}`, { file: 'run.json', path: `$.records[${index}].kind` });
    } else if (!plannedSet.has(slot)) {
      findings.error('SLOT_UNEXPECTED', `slot ${shown(slot)} is not in the plan (${plan.warmup_runs} warmups, ${plan.repetitions} repetitions x ${plan.cases.length} cases)`, where);
    }
  }

  for (const slot of planned) {
    if (!firstIndex.has(slot)) findings.error('SLOT_MISSING', `planned slot ${slot} has no record`, { file: 'run.json', path: '$.records' });
  }
  if (warmups !== plan.warmup_runs) {
    findings.error('WARMUP_COUNT', `run.json has ${warmups} warmup records, plan.warmup_runs is ${plan.warmup_runs}`, { file: 'run.json', path: '$.records' });
  }

  // Order is judged on the planned slots that are present, so a missing slot is not also an order error.
  const present = [...firstIndex.entries()].filter(([slot]) => plannedSet.has(slot));
  const expected = planned.filter((slot) => firstIndex.has(slot));
  const wrong = present.findIndex(([slot], i) => slot !== expected[i]);
  if (wrong >= 0) {
    const [slot, index] = present[wrong]!;
    findings.error('SLOT_ORDER', `records[${index}] is ${slot}, but the planned order puts ${expected[wrong]} there`, { file: 'run.json', path: `$.records[${index}].slot_id` });
  }
}

function checkAgainstPlan(plan: PlanJson, record: RunRecord, index: number, findings: Findings): void {
  const at = (field: string) => ({ file: 'run.json', path: `$.records[${index}].${field}` });
  const measurement = MEASUREMENT_SLOT.exec(record.slot_id);
  let planCase: PlanJson['cases'][number] | undefined;
  if (measurement && record.kind === 'measurement') {
    const repetition = Number(measurement[1]);
    planCase = plan.cases[Number(measurement[2])];
    if (!planCase) return; // SLOT_UNEXPECTED already says so.
    if (record.repetition !== repetition) {
      findings.error('RECORD_REPETITION_MISMATCH', `record ${record.slot_id} has repetition ${record.repetition}, its slot id says ${repetition}`, at('repetition'));
    }
    if (record.case_id !== planCase.case_id) {
      findings.error('RECORD_CASE_MISMATCH', `record ${record.slot_id} has case_id ${shown(record.case_id)}, the plan's case ${Number(measurement[2])} is ${shown(planCase.case_id)}`, at('case_id'));
      return;
    }
  } else {
    planCase = plan.cases.find((c) => c.case_id === record.case_id);
    if (!planCase) {
      findings.error('RECORD_UNKNOWN_CASE', `record ${shown(record.slot_id)} names case_id ${shown(record.case_id)}, which the plan does not have`, at('case_id'));
      return;
    }
  }
  if (record.prompt !== planCase.prompt) {
    findings.error('RECORD_PROMPT_MISMATCH', `record ${shown(record.slot_id)} prompt differs from plan case ${shown(planCase.case_id)}`, at('prompt'));
  }
  if (record.seed !== planCase.seed) {
    findings.error('RECORD_SEED_MISMATCH', `record ${shown(record.slot_id)} has seed ${record.seed}, plan case ${shown(planCase.case_id)} has ${planCase.seed}`, at('seed'));
  }
}

function checkMedia(
  record: RunRecord,
  mediaPath: string,
  index: number,
  inventory: Inventory,
  seal: Map<string, SealLine> | undefined,
  findings: Findings,
): MediaEntry | undefined {
  const where = { file: 'run.json', path: `$.records[${index}].media` };
  const fault = pathFault(mediaPath);
  if (fault) {
    findings.error('MEDIA_PATH_UNSAFE', `record ${shown(record.slot_id)} media ${shown(mediaPath)} ${describeFault(fault)}`, where);
    return undefined;
  }
  let ok = true;
  const expected = `media/${record.slot_id}.mp4`;
  if (mediaPath !== expected) {
    findings.error('MEDIA_PATH_MISMATCH', `record ${shown(record.slot_id)} media is ${shown(mediaPath)}, expected ${shown(expected)}`, where);
    ok = false;
  }
  const file = inventory.files.get(mediaPath);
  if (!file) {
    findings.error('MEDIA_MISSING', `record ${shown(record.slot_id)} media ${shown(mediaPath)} is not in the archive`, where);
    return undefined;
  }
  const line = seal?.get(mediaPath);
  if (seal && !line) {
    findings.error('MEDIA_NOT_SEALED', `record ${shown(record.slot_id)} media ${shown(mediaPath)} is not listed in SHA256SUMS`, where);
    ok = false;
  }
  if (!ok || !line || file.sha256 === null) return undefined;
  return { slot_id: record.slot_id, path: mediaPath, size: file.size, sha256: line.sha256 };
}
