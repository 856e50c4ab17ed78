/**
 * ci.json, plan.json and run.json: parsed with the zod schemas (the schemas
 * are the types), then the cross-file identity rules of docs/run-archive.md.
 * Each record of run.json is parsed on its own, so one bad record does not
 * hide the slot checks of the others.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ciSchemaFor, CI_PROVIDERS, OUT_OF_RANGE, PlanJson, RANGES, RunJson, RunRecord, type CiJson } from '../schemas/run-archive.js';
import { Findings, jsonPath, shown } from './findings.js';
import { hasBom, scanJson } from './json-strict.js';
import type { CiDescription, RunLinks } from './types.js';
import { buildRunLinks } from '../schemas/ci-links.js';

export interface ParsedRecord {
  index: number;
  /** The record as written, for checks that need only some of its fields. */
  raw: unknown;
  /** Present when the record matches the schema. */
  record?: RunRecord;
}

export interface Identity {
  ci?: CiJson;
  plan?: PlanJson;
  plan_sha256?: string;
  /** run.json, present when all of it matches the schema. */
  run?: RunJson;
  /** Every record, parsed or not; absent when run.json has no usable records list. */
  records?: ParsedRecord[];
}

type IssueCode = (path: readonly PropertyKey[]) => string;

/** The identity fields of ci.json each have their own code; any other shape problem is CI_SCHEMA. */
const ciCode: IssueCode = (path) => {
  switch (path[0]) {
    case 'schema_version':
      return 'CI_SCHEMA_VERSION';
    case 'run_id':
      return 'CI_RUN_ID';
    case 'run_attempt':
      return 'CI_RUN_ATTEMPT';
    case 'head_sha':
      return 'CI_HEAD_SHA';
    case 'repository':
      return 'CI_REPOSITORY';
    case 'server_url':
      return 'CI_SERVER_URL';
    case 'project_path':
      return 'CI_REPOSITORY';
    default:
      return 'CI_SCHEMA';
  }
};

const runCode: IssueCode = (path) => (path[0] === 'records' && path[2] === 'latency_s' ? 'RECORD_LATENCY_INVALID' : 'RUN_SCHEMA');

const RunHead = RunJson.omit({ records: true });

export function checkIdentity(metadata: Map<string, Buffer>, findings: Findings): Identity {
  const identity: Identity = {};

  const ciRaw = readJson('ci.json', 'CI', metadata, findings);
  if (ciRaw !== undefined) {
    // Each provider's shape is checked on its own, so a problem is named against the shape the file asks for.
    const schema = ciSchemaFor(ciRaw);
    if (schema === null) {
      const named = JSON.stringify((ciRaw as { provider?: unknown }).provider);
      findings.error('CI_PROVIDER', `ci.json $.provider: ${named} is not a provider this version reads (${CI_PROVIDERS.join(', ')}; absent means github)`, { file: 'ci.json', path: '$.provider' });
    } else identity.ci = validate(schema, ciRaw, 'ci.json', ciCode, findings) as CiJson | undefined;
  }

  const planBytes = metadata.get('plan.json');
  const planRaw = readJson('plan.json', 'PLAN', metadata, findings);
  if (planBytes) identity.plan_sha256 = createHash('sha256').update(planBytes).digest('hex');
  if (planRaw !== undefined) identity.plan = validate(PlanJson, planRaw, 'plan.json', () => 'PLAN_SCHEMA', findings);
  const planned = identity.plan ? identity.plan.warmup_runs + identity.plan.repetitions * identity.plan.cases.length : 0;
  if (planned > RANGES.plannedSlots) {
    // Each field is in range, but every slot is listed and checked: 10,000 x 10,000 of them is work no run needs.
    findings.error(
      'VALUE_OUT_OF_RANGE',
      `plan.json plans ${planned} slots (warmup_runs + repetitions x cases), more than ${RANGES.plannedSlots}`,
      { file: 'plan.json', path: '$.repetitions' },
    );
    delete identity.plan;
  }

  const runRaw = readJson('run.json', 'RUN', metadata, findings);
  if (runRaw !== undefined) {
    // The top level and each record are judged apart, so one bad field hides none of the slot checks.
    const head = validate(RunHead, runRaw, 'run.json', runCode, findings);
    const list = typeof runRaw === 'object' && runRaw !== null ? (runRaw as { records?: unknown }).records : undefined;
    if (Array.isArray(list)) {
      const records: ParsedRecord[] = list.map((raw, index) => {
        const record = validate(RunRecord, raw, 'run.json', runCode, findings, ['records', index]);
        return record ? { index, raw, record } : { index, raw };
      });
      identity.records = records;
      if (head && records.every((r) => r.record)) identity.run = { ...head, records: records.map((r) => r.record!) };
    } else if (typeof runRaw === 'object' && runRaw !== null && !Array.isArray(runRaw)) {
      findings.error('RUN_SCHEMA', 'run.json $.records: expected an array of records', { file: 'run.json', path: '$.records' });
    }
  }

  const { ci, plan, run } = identity;
  if (ci) {
    const suffix = `-${ci.run_id}-${ci.run_attempt}`;
    if (!ci.artifact.name.endsWith(suffix)) {
      findings.error('CI_ARTIFACT_NAME_SUFFIX', `artifact.name ${shown(ci.artifact.name)} does not end with ${shown(suffix)}`, { file: 'ci.json', path: '$.artifact.name' });
    }
    if (ci.hardware.gpus_participating > ci.hardware.gpus_allocated) {
      findings.error(
        'CI_GPU_COUNT',
        `gpus_participating (${ci.hardware.gpus_participating}) exceeds gpus_allocated (${ci.hardware.gpus_allocated})`,
        { file: 'ci.json', path: '$.hardware.gpus_participating' },
      );
    }
  }
  if (plan) {
    const seen = new Map<string, number>();
    plan.cases.forEach((c, i) => {
      const first = seen.get(c.case_id);
      if (first !== undefined) {
        findings.error('PLAN_DUPLICATE_CASE', `case_id ${shown(c.case_id)} is used by cases ${first} and ${i}`, { file: 'plan.json', path: `$.cases[${i}].case_id` });
      } else seen.set(c.case_id, i);
    });
  }
  if (run) {
    if (ci && run.run_id !== ci.run_id) {
      findings.error('RUN_ID_MISMATCH', `run.json run_id ${run.run_id} differs from ci.json run_id ${ci.run_id}`, { file: 'run.json', path: '$.run_id' });
    }
    if (ci && run.run_attempt !== ci.run_attempt) {
      findings.error('RUN_ATTEMPT_MISMATCH', `run.json run_attempt ${run.run_attempt} differs from ci.json run_attempt ${ci.run_attempt}`, { file: 'run.json', path: '$.run_attempt' });
    }
    if (identity.plan_sha256 && run.plan_sha256 !== identity.plan_sha256) {
      findings.error('PLAN_SHA_MISMATCH', `run.json plan_sha256 ${run.plan_sha256} is not the SHA-256 of plan.json (${identity.plan_sha256})`, { file: 'run.json', path: '$.plan_sha256' });
    }
    if (ci && run.expected_gpu_count !== ci.hardware.gpus_participating) {
      // Not a rule of docs/run-archive.md: power accounting uses expected_gpu_count as given, so this only warns.
      findings.warn(
        'RUN_GPU_COUNT_MISMATCH',
        `run.json expected_gpu_count ${run.expected_gpu_count} differs from ci.json gpus_participating ${ci.hardware.gpus_participating}`,
        { file: 'run.json', path: '$.expected_gpu_count' },
      );
    }
    const w = run.measurement_window;
    if (w && w.end_unix < w.start_unix) {
      findings.error('RUN_WINDOW_INVALID', `measurement_window ends (${w.end_unix}) before it starts (${w.start_unix})`, { file: 'run.json', path: '$.measurement_window' });
    }
  }
  return identity;
}

/**
 * What a report says about who produced a run, in the same fields for every provider: the
 * repository is GitHub's `owner/name`, GitLab's project path or what an `other` ci.json gives; a
 * field the provider does not have is null, never made up.
 */
export function describeCi(ci: CiJson): CiDescription {
  const common = { job: ci.job, run_id: ci.run_id, run_attempt: ci.run_attempt, head_sha: ci.head_sha };
  if (ci.provider === 'gitlab') {
    return {
      provider: 'gitlab',
      server_url: ci.server_url,
      repository: ci.project_path,
      workflow: null,
      ...common,
      artifact: { id: null, name: ci.artifact.name },
      gitlab: { project_id: ci.project_id, pipeline_id: ci.pipeline_id },
    };
  }
  if (ci.provider === 'other') {
    return { provider: 'other', server_url: null, repository: ci.repository ?? null, workflow: ci.workflow ?? null, ...common, artifact: { id: null, name: ci.artifact.name }, run_ref: ci.run_ref };
  }
  return { provider: 'github', server_url: ci.server_url, repository: ci.repository, workflow: ci.workflow, ...common, artifact: { id: ci.artifact.id, name: ci.artifact.name } };
}

/**
 * The links back to a run, built per provider from its ids and nothing else (docs/run-archive.md,
 * "ci.json"): GitHub's run attempt and artifact pages; GitLab's job, its pipeline and the job's
 * artifacts; none for `other`, which has no server to link to.
 */
export function runLinks(ci: CiJson): RunLinks {
  if (ci.provider === 'other') return { run: null, artifact: null };
  // The parts were judged by the schema (schemas/ci-links.ts); verify-bundle rebuilds the same links from report.json.
  if (ci.provider === 'gitlab') return buildRunLinks({ provider: 'gitlab', server_url: ci.server_url, repository: ci.project_path, run_id: ci.run_id, run_attempt: ci.run_attempt, pipeline_id: ci.pipeline_id });
  return buildRunLinks({ provider: 'github', server_url: ci.server_url, repository: ci.repository, run_id: ci.run_id, run_attempt: ci.run_attempt, artifact_id: ci.artifact.id });
}

function readJson(file: string, prefix: string, metadata: Map<string, Buffer>, findings: Findings): unknown {
  const bytes = metadata.get(file);
  if (!bytes) {
    findings.error(`${prefix}_MISSING`, `${file} is absent`, { file });
    return undefined;
  }
  if (hasBom(bytes)) {
    findings.error('JSON_BOM', `${file} starts with a byte order mark, which JSON (RFC 8259) does not allow`, { file });
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    findings.error(`${prefix}_INVALID_JSON`, `${file} is not valid UTF-8`, { file });
    return undefined;
  }
  // JSON lets a raw DEL (U+007F) stand in a string; a bundle's JSON and the verbatim copy of this
  // file in it may not hold one (verify-bundle: text without control characters). Refused here, at
  // the source, so that compare never writes a bundle verify-bundle refuses. Escaped (\u007f) it is
  // fine: the copy keeps the escape, and report.json writes one (bundle/json-text.ts).
  const del = text.indexOf('\u007f');
  if (del >= 0) {
    findings.error('JSON_CONTROL_CHARACTER', `${file} holds a raw DEL control character (byte 0x7f); write it escaped (\\u007f) if it is meant`, { file, line: text.slice(0, del).split('\n').length });
    return undefined;
  }
  const faults = scanJson(text);
  const deep = faults.find((f) => f.code === 'JSON_TOO_DEEP');
  if (deep) {
    findings.error(deep.code, `${file} ${deep.message}`, { file, line: deep.line, path: deep.path });
    return undefined;
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (faults.length === 0) return value;
    for (const f of faults) findings.error(f.code, `${file} ${f.message}`, 'path' in f ? { file, line: f.line, path: f.path } : { file });
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const line = position ? text.slice(0, Number(position[1])).split('\n').length : undefined;
    findings.error(`${prefix}_INVALID_JSON`, `${file} is not valid JSON: ${message}`, line === undefined ? { file } : { file, line });
    return undefined;
  }
}

function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  file: string,
  codeOf: IssueCode,
  findings: Findings,
  at: PropertyKey[] = [],
): z.infer<T> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const full = [...at, ...issue.path];
    const range = issue.code === 'custom' && (issue.params as Record<string, unknown> | undefined)?.[OUT_OF_RANGE] === true;
    findings.error(range ? 'VALUE_OUT_OF_RANGE' : codeOf(full), `${file} ${jsonPath(full)}: ${issue.message}`, { file, path: jsonPath(full) });
  }
  return undefined;
}
