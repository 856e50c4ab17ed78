/**
 * `fidelity generate --out <dir>`: writes the synthetic H200 / B200 / H100 run
 * archives (the same ones the demo compares), so a user can try `verify` and
 * `compare` on real-shaped input. A thin shell over generateRuns.
 */
import { counted, FidelityError, generateRuns, SITE_NAMES, type GeneratedRuns, type SiteName } from 'media-fidelity';
import { EXIT, printJson, reportFailure } from '../io.js';
import type { CommandArgs } from './types.js';

function positiveInt(flag: string, value: unknown, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new FidelityError('USAGE', `Expected an integer from 1 to ${max} for --${flag} but received ${JSON.stringify(value)}`);
  }
  return n;
}

function parseSites(value: unknown): SiteName[] | undefined {
  if (value === undefined) return undefined;
  const names = String(value)
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  const known = SITE_NAMES as readonly string[];
  const bad = names.filter((n) => !known.includes(n));
  if (names.length === 0 || bad.length > 0) {
    throw new FidelityError('USAGE', `Expected a comma-separated list of ${SITE_NAMES.join(', ')} for --sites but received ${JSON.stringify(value)}`);
  }
  return [...new Set(names)] as SiteName[];
}

function humanSummary(r: GeneratedRuns): string {
  const lines = [
    `wrote ${counted(r.runs.length, 'synthetic run')} (${r.size}: ${r.plan.width}x${r.plan.height}, ${r.plan.fps} fps, ${counted(r.plan.frames, 'frame')}, ${counted(r.plan.cases, 'case')} x ${counted(r.plan.repetitions, 'repetition')})`,
    `  plan     ${r.plan.plan_id}  plan_sha256 ${r.plan.plan_sha256.slice(0, 12)}`,
    `  ffmpeg   ${r.ffmpeg.version}`,
  ];
  for (const run of r.runs) {
    const gap = run.telemetry_gap ? '  (telemetry has a sampling gap: power is expected to be invalid)' : '';
    lines.push(`  ${run.site.padEnd(5)} ${run.role.padEnd(9)} ${run.dir}  run ${run.run_id} attempt ${run.run_attempt}${gap}`);
  }
  const changed = r.slots.filter((s) => s.difference !== 'identical');
  if (changed.length > 0) {
    lines.push('  controlled differences:');
    for (const s of changed) lines.push(`    ${s.site} ${s.slot_id} ${s.case_id}: ${s.difference} -> ${s.detail}`);
  }
  lines.push(`  manifest ${r.manifest}`);
  return `${lines.join('\n')}\n`;
}

/** `fidelity generate`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  try {
    if (positionals.length > 0) throw new FidelityError('USAGE', `generate takes no positional arguments (received ${positionals.join(' ')})`);
    if (typeof values.out !== 'string' || values.out === '') throw new FidelityError('USAGE', 'generate needs --out <dir>');
    const seconds = positiveInt('seconds', values.seconds, 3600);
    const repetitions = positiveInt('repetitions', values.repetitions, 100);
    const cases = positiveInt('cases', values.cases, 20);
    const sites = parseSites(values.sites);
    const format = values.format === undefined ? 'dir' : String(values.format);
    if (format !== 'dir' && format !== 'zip' && format !== 'tar.gz') {
      throw new FidelityError('USAGE', `Expected dir, zip or tar.gz for --format but received ${JSON.stringify(values.format)}`);
    }
    const progress = io.errIsTty || Boolean(values.progress);
    const result = await generateRuns({
      outDir: values.out,
      size: values.full ? 'full' : 'small',
      format,
      overwrite: Boolean(values.force),
      ...(signal ? { signal } : {}),
      ...(seconds !== undefined ? { seconds } : {}),
      ...(repetitions !== undefined ? { repetitions } : {}),
      ...(cases !== undefined ? { cases } : {}),
      ...(sites ? { sites } : {}),
      ...(progress
        ? { onProgress: (e: { stage: string; done: number; total: number; item: string }) => io.err(`generate ${e.stage} ${e.done}/${e.total} ${e.item}\n`) }
        : {}),
    });
    if (json) printJson(io, { ok: true, ...result });
    else io.out(humanSummary(result));
    return EXIT.ok;
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
