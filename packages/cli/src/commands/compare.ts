import { calibrate, compare, loadCalibration, loadPolicy, type Calibration, type CompareProgress, type CompareResult, type Policy } from 'media-fidelity';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import type { Command } from './types.js';

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
        io.err(`\r\x1b[K${line}`);
        drawn = true;
      } else if (key !== last) {
        last = key;
        io.err(`${line}\n`);
      }
    },
    finish() {
      if (tty && drawn) io.err('\r\x1b[K');
    },
  };
}

/** generated_at from SOURCE_DATE_EPOCH (reproducible-builds.org), so a bundle can be rebuilt byte for byte. */
export function generatedAtFromEnv(env: NodeJS.ProcessEnv = process.env): Date | undefined {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return undefined;
  const seconds = Number(raw);
  return Number.isInteger(seconds) && seconds >= 0 ? new Date(seconds * 1000) : undefined;
}

/** The --json document of a written bundle: counts and where things are, not the whole report (that is report.json). */
export function resultDocument(result: CompareResult): Record<string, unknown> {
  const r = result.report;
  return {
    ok: true,
    out: result.out,
    index: result.index,
    report: `${result.out.replace(/[\\/]+$/, '')}/report.json`,
    files: result.files,
    seal_sha256: result.seal_sha256,
    policy: { name: r.policy.name, calibration_status: r.policy.calibration_status },
    disclaimer: r.disclaimer,
    threshold_failures: r.comparisons.reduce((n, c) => n + c.summary.failed, 0),
    comparisons: r.comparisons.map((c) => ({
      baseline: { run_id: c.baseline_run_id, run_attempt: c.baseline_run_attempt, gpu_model: c.baseline_gpu_model },
      candidate: { run_id: c.candidate_run_id, run_attempt: c.candidate_run_attempt, gpu_model: c.candidate_gpu_model },
      summary: c.summary,
      pairs: c.pairs.map((p) => ({
        slot_id: p.slot_id,
        case_id: p.case_id,
        status: p.status,
        reasons: p.reasons,
        failed_checks: p.checks.filter((k) => k.outcome === 'fail').map((k) => k.name),
      })),
    })),
  };
}

function fmt(value: number | null): string {
  return value === null ? 'n/a' : String(Number(value.toPrecision(4)));
}

/** A few lines per comparison: counts, then each failed and invalid pair with why. */
export function humanSummary(result: CompareResult): string {
  const r = result.report;
  const lines: string[] = [];
  for (const c of r.comparisons) {
    const s = c.summary;
    lines.push(
      `${c.baseline_gpu_model} (run ${c.baseline_run_id}-${c.baseline_run_attempt}) vs ${c.candidate_gpu_model} (run ${c.candidate_run_id}-${c.candidate_run_attempt}): ` +
        `planned ${s.planned}, valid ${s.valid_pairs}, passed ${s.passed}, failed ${s.failed}, invalid ${s.invalid}`,
    );
    for (const p of c.pairs) {
      if (p.status === 'failed') {
        const why = p.checks
          .filter((k) => k.outcome === 'fail')
          .map((k) => `${k.name} ${fmt(k.value)}${k.note ? ` (${k.note})` : ''} not ${k.comparator} ${k.threshold}`)
          .join('; ');
        lines.push(`  failed   ${p.slot_id} ${p.case_id}: ${why}`);
      } else if (p.status === 'invalid') {
        const why = p.reason_details.map((d) => `${d.code}${d.message ? `: ${d.message.split('\n')[0]!.slice(0, 120)}` : ''}`).join('; ');
        lines.push(`  invalid  ${p.slot_id} ${p.case_id}: ${why}`);
      }
    }
  }
  lines.push(`Note: ${r.disclaimer}`);
  lines.push(`Bundle: ${result.index} (${result.files} files sealed, SHA256SUMS sha256 ${result.seal_sha256})`);
  lines.push(`Check it any time with: fidelity verify-bundle ${result.out}`);
  return `${lines.join('\n')}\n`;
}

/** Ctrl-C cancels the comparison cleanly: workers and ffmpeg stop, --out stays as it was. */
export function abortOnSigint(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const handler = (): void => controller.abort();
  process.once('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', handler) };
}

export const compareCommand: Command = {
  name: 'compare',
  usage: 'fidelity compare <baseline> <candidate> [<candidate> ...] --out <dir> [--json] [--threads N] [--policy F] [--fail-on-threshold] [--require-digest] [--force] [--progress]',
  summary: 'verify every run, pair slots, measure every frame and sample, and write one portable bundle',
  options: {
    out: { type: 'string', short: 'o', description: 'bundle folder (created; a previous bundle there is replaced)' },
    'fail-on-threshold': { type: 'boolean', description: 'exit 4 when any pair failed a check (otherwise thresholds never change the exit code)' },
    'require-digest': { type: 'boolean', description: 'refuse a run without an artifact digest (<archive>.sha256)' },
    force: { type: 'boolean', description: 'replace a non-empty --out that is not a fidelity bundle' },
    calibration: { type: 'string', description: 'judge every pair against this noise sample too (calibration.json of fidelity calibrate)' },
    noise: { type: 'string', multiple: true, description: 'same-hardware runs to calibrate from in this command (repeat the option per run)' },
    alpha: { type: 'string', description: 'significance level of the noise verdicts (default 0.05)' },
  },
  async run({ positionals, values, io }) {
    const json = Boolean(values.json);
    if (positionals.length < 2) return usageError(io, json, 'compare needs a baseline run and at least one candidate run');
    if (typeof values.out !== 'string' || values.out === '') return usageError(io, json, 'compare needs --out <dir>');
    const [baseline, ...candidates] = positionals as [string, ...string[]];
    const progress = progressPrinter(io, io.errIsTty || Boolean(values.progress));
    const interrupt = abortOnSigint();
    try {
      const policy: Policy | undefined = typeof values.policy === 'string' ? await loadPolicy(values.policy) : undefined;
      const generatedAt = generatedAtFromEnv();
      const noiseRuns = Array.isArray(values.noise) ? (values.noise as string[]) : [];
      if (noiseRuns.length > 0 && typeof values.calibration === 'string') return usageError(io, json, 'give --calibration or --noise, not both');
      const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
      if (alpha !== undefined && !(alpha > 0 && alpha < 1)) return usageError(io, json, `Expected a number between 0 and 1 for --alpha but received ${String(values.alpha)}`);
      let calibration: Calibration | undefined;
      if (typeof values.calibration === 'string') calibration = await loadCalibration(values.calibration);
      else if (noiseRuns.length > 0) {
        calibration = (await calibrate(noiseRuns, { signal: interrupt.signal, ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}), ...(generatedAt ? { generatedAt } : {}) })).calibration;
      }
      const result = await compare(baseline, candidates, {
        out: values.out,
        force: Boolean(values.force),
        requireDigest: Boolean(values['require-digest']),
        signal: interrupt.signal,
        ...(policy ? { policy } : {}),
        ...(calibration ? { calibration } : {}),
        ...(alpha !== undefined ? { alpha } : {}),
        ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
        ...(generatedAt ? { generatedAt } : {}),
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
      });
      progress.finish();
      if (json) printJson(io, resultDocument(result));
      else io.out(humanSummary(result));
      const failed = result.report.comparisons.some((c) => c.summary.failed > 0);
      return values['fail-on-threshold'] && failed ? EXIT.thresholds : EXIT.ok;
    } catch (error) {
      progress.finish();
      return reportFailure(io, error, json);
    } finally {
      interrupt.dispose();
    }
  },
};
