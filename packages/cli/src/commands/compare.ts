import { byCount, calibrate, clipsText, counted, compare, FidelityError, loadCalibration, loadPolicy, parseShard, resolveMetrics, METRIC_NAMES, METRIC_SETS, type MetricSelection, shardFromEnvironment, sourceDateEpoch, type Calibration, type CompareProgress, type CompareResult, type PartialResult, type Policy, type ShardSpec, type CiOutputs, visibleId } from 'media-fidelity';
import { bundleSize, bundleSizeText } from './bundle-size.js';
import { checkCiTargets, ciTargets, summarizeRefusal, writeCiTargets } from './ci-outputs.js';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import { inline } from '../text.js';
import { nearNames, orList } from '../suggest.js';
import type { CommandArgs, OptionSpec } from './types.js';
import { readDecodeTimeout } from '../options.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function usageError(io: Io, json: boolean, message: string): number {
  if (json) printJson(io, { ok: false, errors: [{ code: 'USAGE', message }] });
  else io.err(`error USAGE: ${message}\n`);
  return EXIT.refused;
}

/**
 * Progress on stderr. On a terminal one line is redrawn in place (at most 10
 * times a second); elsewhere (--progress into a file or pipe) a line is
 * printed only when a stage or a count of whole pairs changes, so logs stay short.
 */
export function progressPrinter(io: Io, enabled: boolean): { onProgress?: (e: CompareProgress) => void; finish: () => void } {
  if (!enabled) return { finish: () => undefined };
  const tty = io.errIsTty;
  let last = '';
  let lastAt = 0;
  let drawn = false;
  const text = (e: CompareProgress): { line: string; key: string } => {
    if (e.stage === 'verify') return { line: `verifying runs ${e.done}/${e.total}${e.run ? ` (${e.run})` : ''}`, key: `v${e.done}` };
    if (e.stage === 'measure') return { line: `measuring pairs ${e.pairsDone}/${e.pairsTotal}, frames ${e.framesDone}/${e.framesTotal}`, key: `m${e.pairsDone}` };
    if (e.stage === 'repetitions') return { line: `measuring the baseline's own repetitions ${e.pairsDone}/${e.pairsTotal}, frames ${e.framesDone}/${e.framesTotal}`, key: `r${e.pairsDone}` };
    if (e.stage === 'merge') {
      return e.step === 'media' ? { line: `probing the media of measured pairs ${e.done}/${e.total}`, key: `q${e.done}` } : { line: `checking partials ${e.done}/${e.total}`, key: `p${e.done}` };
    }
    return { line: `writing bundle: ${e.step} ${e.done}/${e.total}`, key: `b${e.step}` };
  };
  return {
    onProgress(e) {
      const { line, key } = text(e);
      if (tty) {
        const now = Date.now();
        if (now - lastAt < 100 && key === last) return;
        lastAt = now;
        last = key;
        (io.errControl ?? io.err)('\r\x1b[K');
        io.err(line);
        drawn = true;
      } else if (key !== last) {
        last = key;
        io.err(`${line}\n`);
      }
    },
    finish() {
      if (tty && drawn) (io.errControl ?? io.err)('\r\x1b[K');
    },
  };
}

/**
 * generated_at from SOURCE_DATE_EPOCH (reproducible-builds.org), so a bundle can be rebuilt byte for byte.
 * The library reads the same variable itself; a malformed value is refused (SOURCE_DATE_EPOCH_INVALID).
 */
export function generatedAtFromEnv(env: NodeJS.ProcessEnv = process.env): Date | undefined {
  return sourceDateEpoch(env);
}

/** The metric set of `--metrics <set|list>`; `default` without it. A bad name is a usage error. */
export function metricsFromOptions(values: Record<string, unknown>): MetricSelection {
  const given = values.metrics;
  if (given === undefined) return resolveMetrics(undefined);
  try {
    return resolveMetrics(String(given));
  } catch (error) {
    // Each word that names no set and no metric, with the name it was probably meant to be.
    const names = [...Object.keys(METRIC_SETS), ...METRIC_NAMES];
    const hints = String(given)
      .split(',')
      .map((w) => w.trim())
      .filter((w) => w !== '' && !names.includes(w))
      .flatMap((w) => {
        const near = nearNames(w, names);
        return near.length === 0 ? [] : [`${JSON.stringify(w)}: did you mean ${orList(near)}?`];
      });
    throw new FidelityError('USAGE', `--metrics: ${(error as Error).message}${hints.length ? `; ${hints.join('; ')}` : ''}`, { cause: error });
  }
}

/** The shard of `--shard K/N` or `--shard auto` (with `--shards N`); null without --shard. */
export function shardFromOptions(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ShardSpec | null {
  const shard = values.shard;
  const shards = values.shards;
  if (shard === undefined) {
    if (shards !== undefined) throw new FidelityError('USAGE', '--shards N goes with --shard auto');
    if (values.partial !== undefined) throw new FidelityError('USAGE', '--partial <dir> goes with --shard K/N or --shard auto');
    return null;
  }
  if (typeof values.partial !== 'string' || values.partial === '') throw new FidelityError('USAGE', '--shard needs --partial <dir>: a shard writes a partial, and merge writes the bundle');
  if (values.out !== undefined) throw new FidelityError('USAGE', 'a shard writes --partial <dir>, not --out; give --out to fidelity merge');
  if (values['fail-on-threshold'] || values['allow-invalid']) throw new FidelityError('USAGE', '--fail-on-threshold and --allow-invalid apply to the whole comparison: give them to fidelity merge');
  if (shard !== 'auto') {
    if (shards !== undefined) throw new FidelityError('USAGE', '--shards N goes with --shard auto; --shard K/N already names the count');
    return parseShard(String(shard));
  }
  let count: number | undefined;
  if (shards !== undefined) {
    count = /^\d{1,9}$/.test(String(shards)) ? Number(shards) : NaN;
    if (!(count >= 1)) throw new FidelityError('USAGE', `Expected a whole number of at least 1 for --shards but received ${JSON.stringify(shards)}`);
  }
  const found = shardFromEnvironment(env, count);
  return { index: found.index, count: found.count };
}

/** The --json document of a written partial. */
export function partialDocument(result: PartialResult): Record<string, unknown> {
  return {
    ok: true,
    partial: result.out,
    shard: result.shard,
    pairs: result.pairs,
    pairs_total: result.partial.pairs_total,
    measured: result.measured,
    files: result.files,
    seal_sha256: result.seal_sha256,
  };
}

/**
 * The --json document of a written bundle: counts and where things are, not the whole report (that is report.json).
 * Fields that report.json also has carry its names (`baseline_gpu_model`, `reason_details`), so one jq
 * filter reads both. `ok: true` says the command did its work (the bundle is written and sealed); it is
 * not a verdict on the pairs: `exit` (added by reportBundle) is the command's exit code, and `passed`
 * whether that code is 0 (docs/report.md, "Exit codes").
 */
export function resultDocument(result: CompareResult): Record<string, unknown> {
  const r = result.report;
  return {
    ok: true,
    out: result.out,
    index: result.index,
    report: `${result.out.replace(/[\\/]+$/, '')}/report.json`,
    files: result.files,
    seal_sha256: result.seal_sha256,
    ...(r.metrics ? { metrics: r.metrics } : {}),
    ...(r.measurement_origin ? { measurement_origin: r.measurement_origin } : {}),
    policy: { name: r.policy.name, calibration_status: r.policy.calibration_status },
    disclaimer: r.disclaimer,
    threshold_failures: r.comparisons.reduce((n, c) => n + c.summary.failed, 0),
    comparisons: r.comparisons.map((c) => ({
      baseline_run_id: c.baseline_run_id,
      baseline_run_attempt: c.baseline_run_attempt,
      baseline_gpu_model: c.baseline_gpu_model,
      candidate_run_id: c.candidate_run_id,
      candidate_run_attempt: c.candidate_run_attempt,
      candidate_gpu_model: c.candidate_gpu_model,
      summary: c.summary,
      pairs: c.pairs.map((p) => ({
        slot_id: p.slot_id,
        case_id: p.case_id,
        status: p.status,
        reasons: p.reasons,
        // Each code with its sentence ("CUDA out of memory"), as report.json has them: a code alone says what, not why.
        reason_details: p.reason_details.map((d) => ({ code: d.code, message: d.message, side: d.side })),
        failed_checks: p.checks.filter((k) => k.outcome === 'fail').map((k) => k.name),
      })),
    })),
  };
}

function fmt(value: number | null): string {
  return value === null ? 'n/a' : String(Number(value.toPrecision(4)));
}

/**
 * What is at `out` before a command writes there: a previous bundle (its report.json and
 * SHA256SUMS), another non-empty folder, or nothing to replace (null). Read before writing, so the
 * command can say afterwards what it replaced.
 */
export function existingOut(out: string): 'bundle' | 'folder' | null {
  try {
    if (!statSync(out).isDirectory() || readdirSync(out).length === 0) return null;
  } catch {
    return null;
  }
  return existsSync(path.join(out, 'report.json')) && existsSync(path.join(out, 'SHA256SUMS')) ? 'bundle' : 'folder';
}

/** The line that says a written bundle replaced what was at `out`; null when nothing was there. */
export function replacedLine(command: string, out: string, before: 'bundle' | 'folder' | null): string | null {
  if (before === null) return null;
  return before === 'bundle' ? `fidelity ${command}: replaced the bundle that was in ${inline(out)}\n` : `fidelity ${command}: replaced the folder ${inline(out)} and what it held (--force)\n`;
}

/**
 * What --repeatability skipped, when it measured nothing: with one repetition per case the
 * baseline has no repetitions of its own to compare with each other. Null when it measured some.
 * `command` names who says it: compare and merge print this one line, from this one function.
 */
export function repeatabilitySkipped(command: 'compare' | 'merge', result: CompareResult): string | null {
  const cases = result.report.comparisons.flatMap((c) => c.cases);
  if (cases.some((c) => c.repetitions > 1)) return null;
  return `fidelity ${command}: --repeatability measured nothing: every case of the plan has one repetition, so the baseline has no repetitions of its own to compare with each other\n`;
}

/**
 * What --alpha changed nothing in: without a noise sample (compare's --calibration or --noise,
 * merge's --calibration) no pair gets a noise verdict for alpha to be the level of. Null when one
 * was given, or no --alpha.
 */
export function alphaSkipped(command: 'compare' | 'merge', values: Record<string, unknown>): string | null {
  const noise = Array.isArray(values.noise) && values.noise.length > 0;
  if (values.alpha === undefined || typeof values.calibration === 'string' || noise) return null;
  const given = command === 'compare' ? '--calibration or --noise' : '--calibration';
  return `fidelity ${command}: --alpha ${inline(String(values.alpha))} changed nothing: without a noise sample (${given}) no pair has a noise verdict for it to be the level of\n`;
}

/**
 * Says on stderr what a written bundle replaced and which options measured or changed nothing,
 * for compare and merge alike (stdout stays the result).
 */
export function sayReplacedAndSkipped(io: Io, command: 'compare' | 'merge', values: Record<string, unknown>, before: 'bundle' | 'folder' | null, result: CompareResult): void {
  const lines = [
    replacedLine(command, String(values.out), before),
    values.repeatability ? repeatabilitySkipped(command, result) : null,
    alphaSkipped(command, values),
  ];
  for (const line of lines) if (line) io.err(line);
}

type Pair = CompareResult['report']['comparisons'][number]['pairs'][number];

/** Why a pair failed or is invalid, in one line: its failed checks with value and rule, or its reasons. */
function pairWhy(p: Pair): string {
  if (p.status === 'failed') {
    return p.checks
      .filter((k) => k.outcome === 'fail')
      .map((k) => `${k.name} ${fmt(k.value)}${k.note ? ` (${k.note})` : ''} not ${k.comparator} ${k.threshold}`)
      .join('; ');
  }
  return p.reason_details.map((d) => `${d.code}${d.message ? `: ${inline(d.message.split('\n')[0]!.slice(0, 120))}` : ''}`).join('; ');
}

/**
 * The failed and invalid pairs by case, as the page lists them: one line per case and outcome with
 * the same reason ("failed   night-market-s29: failed in 4 of 4 repetitions: " and the failed checks
 * with their figures), repetitions whose reasons differ on lines of their own ("in repetitions 1, 3 of 4"); a case
 * of one repetition by its slot, as before. Failed cases first, then invalid ones, each in plan order.
 */
export function caseLines(pairs: readonly Pair[]): string[] {
  const byCase = new Map<string, Pair[]>();
  for (const p of pairs) byCase.set(p.case_id, [...(byCase.get(p.case_id) ?? []), p]);
  const out: { rank: number; line: string }[] = [];
  for (const [caseId, all] of byCase) {
    const groups = new Map<string, Pair[]>();
    for (const p of all) {
      if (p.status === 'passed') continue;
      const key = `${p.status}\u0000${pairWhy(p)}`;
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    for (const [key, list] of groups) {
      const [status, why] = key.split('\u0000') as [string, string];
      const label = status.padEnd(8);
      let line: string;
      if (all.length === 1) line = `  ${label} ${inline(visibleId(list[0]!.slot_id))} ${inline(visibleId(caseId))}: ${why}`;
      else {
        const reps = list.map((p) => p.repetition);
        const where = list.length === all.length ? `${status} in ${list.length} of ${counted(all.length, 'repetition')}` : `${status} in ${byCount(reps.length, 'repetition', 'repetitions')} ${reps.join(', ')} of ${all.length}`;
        line = `  ${label} ${inline(visibleId(caseId))}: ${where}: ${why}`;
      }
      out.push({ rank: status === 'failed' ? 0 : 1, line });
    }
  }
  // Array.prototype.sort is stable: plan order stays within each outcome.
  return out.sort((a, b) => a.rank - b.rank).map((x) => x.line);
}

/** A few lines per comparison: counts, then the failed and invalid pairs by case (caseLines), with why. */
export function humanSummary(result: CompareResult): string {
  const r = result.report;
  const lines: string[] = [];
  for (const c of r.comparisons) {
    const s = c.summary;
    lines.push(
      `${inline(c.baseline_gpu_model)} (run ${c.baseline_run_id}-${c.baseline_run_attempt}) vs ${inline(c.candidate_gpu_model)} (run ${c.candidate_run_id}-${c.candidate_run_attempt}): ` +
        `planned ${s.planned}, valid ${s.valid_pairs}, passed ${s.passed}, failed ${s.failed}, invalid ${s.invalid}`,
    );
    if (c.noise) {
      const per = c.noise.metrics.map((k) => `${k} ${c.noise!.beyond_by_metric[k] ?? 0}`).join(', ');
      lines.push(`  noise floor: n = ${counted(c.noise.n, 'same-hardware pair')}, alpha ${c.noise.alpha}; pairs beyond noise ${c.noise.beyond_pairs} of ${c.noise.valid_pairs}; per metric: ${per}`);
      if (c.noise.note) lines.push(`  noise floor: ${c.noise.note}`);
    }
    lines.push(...caseLines(c.pairs));
  }
  // Each run's clips checked on their own, the invalid ones named by slot and first code (runs[].clips).
  for (const run of r.runs) {
    if (run.clips) lines.push(`Clips of ${inline(run.hardware.gpu_model)} (run ${run.run_id}-${run.run_attempt}): ${inline(clipsText(run.clips))}`);
  }
  const origin = r.measurement_origin;
  if (origin && origin.taken_from_shards > 0) {
    lines.push(`Measured: ${origin.measured_here} of ${counted(origin.pairs, 'pair')} re-measured by merge (identical); the rest taken from the shards after merge's checks`);
  }
  lines.push(`Note: ${r.disclaimer}`);
  const size = bundleSize(result.out);
  lines.push(`Bundle: ${result.index} (${counted(result.files, 'file')} sealed${size ? `, ${bundleSizeText(size)}` : ''}, SHA256SUMS sha256 ${result.seal_sha256})`);
  // npx: after the Quick start the bin is in node_modules/.bin, not on PATH.
  lines.push(`Check it any time with: npx fidelity verify-bundle ${result.out}`);
  return `${lines.join('\n')}\n`;
}

/** What `--fail-on-threshold` and `--allow-invalid` asked for; both false: the exit code is 0 whatever the pairs say. */
export interface GateOptions {
  failOnThreshold: boolean;
  allowInvalid: boolean;
}

/** The gate's verdict on a written bundle: its exit code and, when it failed, the reason code and a sentence. */
export interface GateResult {
  exit: number;
  code: 'GATE_CHECK_FAILED' | 'GATE_INVALID_PAIRS' | null;
  message: string;
}

/** "4 planned pairs", "1 planned pair": the count and its noun agree. */
function plannedPairs(planned: number): string {
  return counted(planned, 'planned pair');
}

/**
 * The CI gate (docs/report.md, "Exit codes"): with --fail-on-threshold, 4 when a pair failed a
 * check, else 5 when a planned pair is invalid, whatever its reason code (a failed request, an
 * incompatible pair, media against the plan, an invalid clip): a run in which nothing could be
 * measured must not pass as "no check failed". --allow-invalid drops the second rule while at least
 * one pair was judged (passed or failed); with no pair judged the gate still says 5: "no pair was
 * measured" is not a pass. Every message counts the invalid pairs beside the failed ones.
 */
export function gateVerdict(result: CompareResult, options: GateOptions): GateResult {
  const comparisons = result.report.comparisons;
  const failed = comparisons.reduce((n, c) => n + c.summary.failed, 0);
  const invalid = comparisons.reduce((n, c) => n + c.summary.invalid, 0);
  const planned = comparisons.reduce((n, c) => n + c.summary.planned, 0);
  const judged = comparisons.reduce((n, c) => n + c.summary.passed + c.summary.failed, 0);
  // An invalid pair may still have been measured (an invalid clip: its metrics stay as a diagnosis, never judged).
  const measured = comparisons.reduce((n, c) => n + c.pairs.filter((p) => p.status === 'invalid' && p.video !== null).length, 0);
  const why = [
    measured > 0 ? `${measured} measured, not judged` : '',
    invalid - measured > 0 ? `${invalid - measured} with nothing measured to judge ${byCount(invalid - measured, 'it', 'them')} by` : '',
  ].filter(Boolean).join(', ');
  if (!options.failOnThreshold) return { exit: EXIT.ok, code: null, message: 'not gated: without --fail-on-threshold the exit code is 0 whenever the bundle is written' };
  if (failed > 0) {
    const alsoInvalid = invalid > 0 ? `; ${invalid} more ${byCount(invalid, 'is', 'are')} invalid (${why})` : '';
    return { exit: EXIT.thresholds, code: 'GATE_CHECK_FAILED', message: `${failed} of ${plannedPairs(planned)} failed a check${alsoInvalid}` };
  }
  if (invalid > 0 && (!options.allowInvalid || judged === 0)) {
    // --allow-invalid lets invalid pairs stand beside judged ones; it never turns "nothing was judged" into a pass.
    if (judged === 0) {
      const what = measured === 0 ? 'no pair was measured' : 'no pair was judged';
      const allowed = options.allowInvalid ? '; --allow-invalid passes invalid pairs beside judged ones, not a comparison with nothing judged' : '';
      return { exit: EXIT.invalid, code: 'GATE_INVALID_PAIRS', message: `${what}: ${byCount(planned, 'the 1 planned pair is', `all ${planned} planned pairs are`)} invalid (${why})${allowed}` };
    }
    return { exit: EXIT.invalid, code: 'GATE_INVALID_PAIRS', message: `no pair failed a check, but ${invalid} of ${plannedPairs(planned)} ${byCount(invalid, 'is', 'are')} invalid (${why}; --allow-invalid accepts that)` };
  }
  const allowed = invalid > 0 ? ` (${counted(invalid, 'invalid pair')} allowed by --allow-invalid)` : '';
  return { exit: EXIT.ok, code: null, message: `passed: ${judged} of ${plannedPairs(planned)} measured and judged, every one passed every check${allowed}` };
}

/** Prints a written bundle's result (the --json document or the human summary) and gives the gate's exit code (0, 4 or 5). */
export function reportBundle(io: Io, json: boolean, result: CompareResult, options: GateOptions): number {
  const gate = gateVerdict(result, options);
  // `exit` and `passed` say what the exit code says, beside `ok` (the bundle was written): one meaning each.
  if (json) printJson(io, { ...resultDocument(result), exit: gate.exit, passed: gate.exit === EXIT.ok, ...(options.failOnThreshold ? { gate } : {}) });
  else io.out(`${humanSummary(result)}${options.failOnThreshold ? `Gate: exit ${gate.exit}${gate.code ? ` ${gate.code}` : ''}: ${gate.message}\n` : ''}`);
  return gate.exit;
}

/** The gate's options from a command line: --allow-invalid only with --fail-on-threshold (an option that would change nothing is refused). */
export function gateOptions(values: Record<string, unknown>): GateOptions {
  const failOnThreshold = Boolean(values['fail-on-threshold']);
  const allowInvalid = Boolean(values['allow-invalid']);
  if (allowInvalid && !failOnThreshold) throw new FidelityError('USAGE', '--allow-invalid relaxes --fail-on-threshold: give both, or neither');
  return { failOnThreshold, allowInvalid };
}

/**
 * Ctrl-C cancels the comparison cleanly: workers and ffmpeg stop, --out stays
 * as it was. main() passes a signal that also covers SIGTERM and SIGHUP
 * (interrupt.ts); this SIGINT-only one is for a command run on its own.
 */
export function abortOnSigint(given?: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (given) return { signal: given, dispose: () => undefined };
  const controller = new AbortController();
  const handler = (): void => controller.abort();
  process.once('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', handler) };
}

/** `fidelity compare`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  if (positionals.length < 2) return usageError(io, json, 'compare needs a baseline run and at least one candidate run');
  const [baseline, ...candidates] = positionals as [string, ...string[]];
  let shard: ShardSpec | null;
  let metrics: MetricSelection;
  let gate: GateOptions;
  try {
    shard = shardFromOptions(values);
    gate = gateOptions(values);
    metrics = metricsFromOptions(values);
  } catch (error) {
    return reportFailure(io, error, json);
  }
  if (!shard && (typeof values.out !== 'string' || values.out === '')) return usageError(io, json, 'compare needs --out <dir>');
  if (shard && (values.junit !== undefined || values.summary !== undefined)) {
    return usageError(io, json, 'a shard measures only: give --junit and --summary to fidelity merge, which writes the bundle');
  }
  const progress = progressPrinter(io, io.errIsTty || Boolean(values.progress));
  const interrupt = abortOnSigint(signal);
  // Set once their place is checked; a shard writes neither (GITHUB_STEP_SUMMARY included: merge summarizes the whole).
  let targets: CiOutputs | null = null;
  try {
    if (!shard) {
      const noise = Array.isArray(values.noise) ? (values.noise as string[]) : [];
      const read = [...positionals, ...noise, ...[values.policy, values.calibration].filter((v): v is string => typeof v === 'string')];
      const wanted = ciTargets(values);
      await checkCiTargets(wanted, String(values.out), read);
      targets = wanted;
    }
    const timeoutMs = readDecodeTimeout(values);
    const policy: Policy | undefined = typeof values.policy === 'string' ? await loadPolicy(values.policy) : undefined;
    const generatedAt = generatedAtFromEnv();
    const noiseRuns = Array.isArray(values.noise) ? (values.noise as string[]) : [];
    if (noiseRuns.length > 0 && typeof values.calibration === 'string') return usageError(io, json, 'give --calibration or --noise, not both');
    // --alpha is the level of the noise verdicts, which only merge gives: on a shard it would change nothing.
    if (shard && (noiseRuns.length > 0 || typeof values.calibration === 'string' || values.alpha !== undefined)) {
      return usageError(io, json, 'a shard measures only: give --calibration (and --alpha) to fidelity merge, which adds the noise verdicts to the whole bundle');
    }
    if (shard && values.repeatability) {
      return usageError(io, json, "a shard measures its pairs only: give --repeatability to fidelity merge, which measures the baseline's own repetitions from the runs");
    }
    const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
    if (alpha !== undefined && !(alpha > 0 && alpha < 1)) return usageError(io, json, `Expected a number between 0 and 1 for --alpha but received ${String(values.alpha)}`);
    let calibration: Calibration | undefined;
    if (typeof values.calibration === 'string') calibration = await loadCalibration(values.calibration);
    else if (noiseRuns.length > 0) {
      calibration = (await calibrate(noiseRuns, { signal: interrupt.signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}), ...(generatedAt ? { generatedAt } : {}) })).calibration;
    }
    const common = {
      force: Boolean(values.force),
      requireDigest: Boolean(values['require-digest']),
      requireProvider: Boolean(values['require-provider']),
      signal: interrupt.signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(policy ? { policy } : {}),
      ...(calibration ? { calibration } : {}),
      ...(alpha !== undefined ? { alpha } : {}),
      ...(values.repeatability ? { repeatability: true } : {}),
      metrics,
      ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    };
    if (shard) {
      const partial = await compare(baseline, candidates, { ...common, out: String(values.partial), shard });
      progress.finish();
      if (json) printJson(io, partialDocument(partial));
      else {
        io.out(
          `Shard ${partial.shard.index}/${partial.shard.count}: ${partial.pairs.length} of ${counted(partial.partial.pairs_total, 'pair')} (${partial.measured} measured) in ${partial.out} ` +
            `(${counted(partial.files, 'file')} sealed, SHA256SUMS sha256 ${partial.seal_sha256})\n` +
            `When every shard is done: fidelity merge <the same runs> --partials <their folders> --out <bundle>\n`,
        );
      }
      return EXIT.ok;
    }
    const before = existingOut(String(values.out));
    const result = await compare(baseline, candidates, { ...common, out: String(values.out) });
    progress.finish();
    // Nothing replaced or skipped goes unsaid (on stderr, beside the progress: stdout stays the result).
    sayReplacedAndSkipped(io, 'compare', values, before, result);
    if (targets) await writeCiTargets(targets, result);
    return reportBundle(io, json, result, gate);
  } catch (error) {
    progress.finish();
    await summarizeRefusal(targets, 'compare', error);
    return reportFailure(io, error, json);
  } finally {
    interrupt.dispose();
  }
}
