import { calibrate, calibratedPolicy, canDecide, counted, DEFAULT_ALPHA, smallestP, checkCalibrateOutputs, FidelityError, writeCalibrateOutputs, type Calibration, type CalibrateProgress } from 'media-fidelity';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import { abortOnSigint, generatedAtFromEnv } from './compare.js';
import type { CommandArgs } from './types.js';

function progressLine(io: Io, enabled: boolean): ((e: CalibrateProgress) => void) | undefined {
  if (!enabled) return undefined;
  return (e) => io.err(e.stage === 'verify' ? `verifying runs ${e.done}/${e.total}\n` : `measuring same-hardware pairs ${e.pairsDone}/${e.pairsTotal}\n`);
}

/**
 * A few lines: the sample's size, where it came from, and each metric's worst same-hardware value.
 * `alpha` is the level the note about a small sample speaks of: --alpha when given, else 0.05.
 */
export function calibrationSummary(c: Calibration, out: string, alpha = DEFAULT_ALPHA): string {
  const lines = [
    `Noise sample: n = ${counted(c.n, 'same-hardware pair')} (${c.pairs.filter((p) => p.kind === 'repetition').length} repetition, ${c.pairs.filter((p) => p.kind === 'rerun').length} rerun), ${c.excluded.length} left out`,
    `Sources: ${c.sources.map((s) => `${s.gpu_model} run ${s.run_id}-${s.run_attempt}`).join(', ')}`,
  ];
  for (const e of c.excluded) lines.push(`  left out ${e.pair}: ${e.code}`);
  for (const [key, m] of Object.entries(c.metrics)) {
    const worst = m.worse === 'lower' ? m.values[0] : m.values[m.values.length - 1];
    lines.push(`  ${key}: worst ${worst === null || worst === undefined ? 'identical (+inf)' : Number(worst.toPrecision(6))} (${m.worse} is worse, ${counted(m.values.length, 'value')})`);
  }
  if (!canDecide(c.n, alpha)) {
    // The smallest p is 1 / (n + 1): a verdict at level alpha needs n >= 1 / alpha - 1.
    lines.push(`Note: with n = ${c.n} the smallest possible p is ${smallestP(c.n).toFixed(3)}: no pair can be declared beyond noise at alpha = ${alpha} (n >= ${Math.ceil(1 / alpha - 1)} needed).`);
  }
  lines.push(`Written: ${out}`);
  return `${lines.join('\n')}\n`;
}

/**
 * What --alpha changed nothing in: it is the level the calibrated policy names, and without
 * --policy-out no policy is written (calibration.json holds the sample, no level). Null otherwise.
 */
export function calibrateAlphaSkipped(values: Record<string, unknown>): string | null {
  if (values.alpha === undefined || typeof values['policy-out'] === 'string') return null;
  return `fidelity calibrate: --alpha ${String(values.alpha)} changed nothing: it is the level the calibrated policy names, and without --policy-out no policy is written (calibration.json holds no level; give --alpha to compare or merge)\n`;
}

/** `fidelity calibrate`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  const usage = (message: string): number => reportFailure(io, new FidelityError('USAGE', message), json);
  if (positionals.length < 1) return usage('calibrate needs at least one run (a run with repetitions, or two runs of the same hardware)');
  if (typeof values.out !== 'string' || values.out === '') return usage('calibrate needs --out <file>');
  const alpha = values.alpha === undefined ? DEFAULT_ALPHA : Number(values.alpha);
  if (!(alpha > 0 && alpha < 1)) return usage(`Expected a number between 0 and 1 for --alpha but received ${String(values.alpha)}`);
  // main()'s signal: SIGINT, SIGTERM and SIGHUP all stop the measuring, as in every command.
  const interrupt = abortOnSigint(signal);
  try {
    const outputs = {
      out: values.out,
      ...(typeof values['policy-out'] === 'string' ? { policyOut: values['policy-out'] } : {}),
      force: Boolean(values.force),
    };
    // Every refusal of the outputs comes before any run is read or measured.
    await checkCalibrateOutputs(positionals, outputs);
    const generatedAt = generatedAtFromEnv();
    const onProgress = progressLine(io, io.errIsTty || Boolean(values.progress));
    const { calibration } = await calibrate(positionals, {
      requireDigest: Boolean(values['require-digest']),
      signal: interrupt.signal,
      ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    const policy = typeof values['policy-out'] === 'string' ? calibratedPolicy(calibration, alpha) : undefined;
    await writeCalibrateOutputs(outputs, calibration, policy, interrupt.signal);
    // An option that changed nothing is said, on stderr: stdout stays the result.
    const skipped = calibrateAlphaSkipped(values);
    if (skipped) io.err(skipped);
    if (json) {
      printJson(io, {
        ok: true,
        out: values.out,
        policy_out: policy ? values['policy-out'] : null,
        n: calibration.n,
        excluded: calibration.excluded.map((e) => ({ pair: e.pair, code: e.code })),
        metrics: Object.fromEntries(Object.entries(calibration.metrics).map(([k, m]) => [k, { worse: m.worse, values: m.values.length }])),
      });
    } else io.out(calibrationSummary(calibration, values.out, alpha));
    return EXIT.ok;
  } catch (error) {
    return reportFailure(io, error, json);
  } finally {
    interrupt.dispose();
  }
}
