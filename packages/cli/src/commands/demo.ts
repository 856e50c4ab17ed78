import path from 'node:path';
import { calibrate, compare, generateRuns, loadPolicy, makeTempDir, removeTempDir, type Policy } from 'media-fidelity';
import { EXIT, printJson, reportFailure } from '../io.js';
import { abortOnSigint, existingOut, generatedAtFromEnv, humanSummary, progressPrinter, replacedLine, resultDocument } from './compare.js';
import type { CommandArgs } from './types.js';
import { DEFAULT_DEMO_OUT, readDecodeTimeout } from '../options.js';

/** Where the demo bundle goes when --out is not given: a folder in the current directory, easy to find and open. */
/** `fidelity demo`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  if (positionals.length > 0) {
    const message = `demo takes no positional arguments (received ${positionals.join(' ')})`;
    if (json) printJson(io, { ok: false, errors: [{ code: 'USAGE', message }] });
    else io.err(`error USAGE: ${message}\n`);
    return EXIT.refused;
  }
  const out = typeof values.out === 'string' && values.out !== '' ? values.out : DEFAULT_DEMO_OUT;
  const keepRuns = typeof values.runs === 'string' && values.runs !== '';
  const showProgress = io.errIsTty || Boolean(values.progress);
  const progress = progressPrinter(io, showProgress);
  const interrupt = abortOnSigint(signal);
  let runsDir: string | undefined;
  try {
    const timeoutMs = readDecodeTimeout(values);
    // Read before anything is generated: a bad policy file is refused at once.
    const policy: Policy | undefined = typeof values.policy === 'string' ? await loadPolicy(values.policy) : undefined;
    // The library's temp folder: named by its owner, so a killed demo's runs are swept by a later run.
    runsDir = keepRuns ? (values.runs as string) : await makeTempDir(undefined, 'demo-runs');
    if (!json) io.err(`fidelity demo: generating synthetic runs (${values.full ? 'full' : 'small'} size)...\n`);
    const generated = await generateRuns({
      outDir: runsDir,
      size: values.full ? 'full' : 'small',
      // The H200 rerun and four repetitions are the same-hardware evidence the noise floor is calibrated from: n = 100 pairs,
      // enough for a pair verdict over the 4 judged metrics at alpha 0.05 (n >= 79).
      sites: ['H200', 'B200', 'H100', 'H200R'],
      repetitions: 4,
      overwrite: Boolean(values.force),
      signal: interrupt.signal,
      ...(showProgress
        ? {
            onProgress: (e: { stage: string; done: number; total: number }) => {
              if (io.errIsTty) (io.errControl ?? io.err)('\r\x1b[K');
              io.err(`generating ${e.stage} ${e.done}/${e.total}${io.errIsTty ? '' : '\n'}`);
            },
          }
        : {}),
    });
    if (showProgress && io.errIsTty) (io.errControl ?? io.err)('\r\x1b[K');
    const baseline = generated.runs.find((r) => r.role === 'baseline');
    const order = ['B200', 'H100'];
    const candidates = generated.runs.filter((r) => r.role === 'candidate').sort((a, b) => order.indexOf(a.site) - order.indexOf(b.site));
    if (!baseline || candidates.length === 0) throw new Error('the generator returned no baseline or no candidate run');
    const rerun = generated.runs.find((r) => r.role === 'rerun');
    if (!rerun) throw new Error('the generator returned no rerun');
    if (!json) io.err(`fidelity demo: calibrating the H200 noise floor from ${baseline.site} and its rerun...\n`);
    const { calibration } = await calibrate([baseline.dir, rerun.dir], {
      signal: interrupt.signal,
      ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    if (!json) io.err(`fidelity demo: comparing ${baseline.site} against ${candidates.map((c) => c.site).join(' and ')}...\n`);
    const generatedAt = generatedAtFromEnv();
    const before = existingOut(out);
    const result = await compare(baseline.dir, candidates.map((c) => c.dir), {
      out,
      calibration,
      ...(policy ? { policy } : {}),
      force: Boolean(values.force),
      signal: interrupt.signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}),
      ...(generatedAt ? { generatedAt } : {}),
      ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    });
    progress.finish();
    const replaced = replacedLine('demo', out, before);
    if (replaced) io.err(replaced);
    if (json) printJson(io, { ...resultDocument(result), runs: keepRuns ? generated.runs.map((r) => ({ site: r.site, role: r.role, dir: r.dir })) : null });
    else {
      io.out(humanSummary(result));
      io.out(`Open ${path.resolve(result.index)} in a browser (it works offline, from file://).\n`);
      if (keepRuns) io.out(`The synthetic runs are in ${runsDir}; try: npx fidelity verify ${candidates[0]!.dir}\n`);
    }
    // Threshold failures are the point of the demo (some candidates are built to fail), not an error.
    return EXIT.ok;
  } catch (error) {
    progress.finish();
    return reportFailure(io, error, json);
  } finally {
    interrupt.dispose();
    if (!keepRuns && runsDir) await removeTempDir(runsDir);
  }
}
