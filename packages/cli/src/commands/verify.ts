/**
 * `fidelity verify <run>`: checks one run archive (folder, .zip or .tar.gz)
 * against docs/run-archive.md. Exit 0 valid, 2 invalid (every problem listed with
 * its reason code), 1 internal error. A valid run's ok slots are then probed
 * (one ffprobe each) against the plan's media spec: a slot that differs is a
 * warning (MEDIA_PLAN_MISMATCH), listed like a failed request; no ffprobe is a
 * warning too (docs/media.md, "Media against the plan").
 */
// The verifying entry: the archive, its schemas and the probe, not the whole index (which loads every room
// of the library); --clips, which measures, loads the index when it is given.
import { checkRunMedia, checkTempDirs, DEFAULT_LIMITS, FidelityError, planFpsText, resolveFfmpeg, summarizeRun, verifyRun, type ArchiveLimits, type Problem, type RunMediaCheck, type RunSummary } from 'media-fidelity/verify';
import { counted } from 'media-fidelity/base';
import type { RunClipsAnalysis } from 'media-fidelity';
import { EXIT, printJson, reportFailure, type Io } from '../io.js';
import { inline } from '../text.js';
import { readDecodeTimeout } from '../options.js';
import type { CommandArgs, OptionSpec } from './types.js';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** "4096", "512MiB", "2G": binary units, because the defaults are stated in MiB / GiB. */
export function parseByteSize(flag: string, value: string): number {
  const match = /^\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(value);
  const n = match ? Number(match[1]) * UNITS[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new FidelityError('USAGE', `Expected a size in bytes (e.g. 512MiB, 2GiB) for --${flag} but received ${JSON.stringify(value)}`);
  }
  return n;
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new FidelityError('USAGE', `Expected a positive integer for --${flag} but received ${JSON.stringify(value)}`);
  }
  return n;
}

export function readLimits(values: Record<string, unknown>): Partial<ArchiveLimits> {
  const limits: Partial<ArchiveLimits> = {};
  const files = values['max-files'];
  if (typeof files === 'string') {
    const n = Number(files);
    if (!/^\d+$/.test(files.trim()) || !Number.isSafeInteger(n) || n < 1) {
      throw new FidelityError('USAGE', `Expected a positive integer for --max-files but received ${JSON.stringify(files)}`);
    }
    limits.maxFiles = n;
  }
  if (typeof values['max-file-size'] === 'string') limits.maxFileBytes = parseByteSize('max-file-size', values['max-file-size']);
  if (typeof values['max-total-size'] === 'string') limits.maxTotalBytes = parseByteSize('max-total-size', values['max-total-size']);
  if (typeof values['max-entries'] === 'string') limits.maxEntries = positiveInteger('max-entries', values['max-entries']);
  if (typeof values['max-inflated-size'] === 'string') limits.maxDecompressedBytes = parseByteSize('max-inflated-size', values['max-inflated-size']);
  if (typeof values['max-compression-ratio'] === 'string') limits.maxCompressionRatio = positiveInteger('max-compression-ratio', values['max-compression-ratio']);
  return limits;
}

export function formatProblem(p: Problem): string {
  const w = p.where;
  let where = '';
  if (w?.file || w?.path) {
    const file = w.file ? `${w.file}${w.line === undefined ? '' : `:${w.line}`}` : '';
    where = ` (${[file, w.path].filter(Boolean).join(' ')})`;
  }
  return `${p.code} ${inline(p.message)}${inline(where)}`;
}

const PROVIDER_NAMES = { github: 'GitHub Actions', gitlab: 'GitLab CI', other: 'other CI (no links)' } as const;

/** The plan's media spec in one line: "1344x768, 24 fps, 192 frames; 32000 Hz, 2 channels". */
function planSpecText(p: RunMediaCheck['plan']): string {
  return `${p.video.width}x${p.video.height}, ${planFpsText(p.video.fps)} fps, ${counted(p.video.frames, 'frame')}; ${p.audio.sample_rate} Hz, ${counted(p.audio.channels, 'channel')}`;
}

/**
 * The media against the plan, listed like the failed requests: one line per slot that differs (or
 * that ffprobe cannot read), with its fields; the warnings on stderr carry the whole message.
 */
function mediaLines(media: RunMediaCheck): string[] {
  if (!media.checked) return [`  media     not checked against the plan (${planSpecText(media.plan)}): no usable ffprobe (warning ${media.warnings[0]?.code ?? ''})`];
  const off = media.slots.filter((x) => x.outcome !== 'conforms');
  const lines = [`  media     ${counted(media.slots.length, 'ok slot')} probed against the plan (${planSpecText(media.plan)}): ${media.slots.length - off.length} as planned, ${off.length} not`];
  for (const x of off) {
    const what = x.outcome === 'mismatch'
      ? x.mismatches!.map((f) => `${f.field} ${f.media === null ? 'none' : f.field === 'fps' ? planFpsText(f.media) : f.media} (plan ${f.field === 'fps' ? planFpsText(f.plan) : f.plan})`).join(', ')
      : 'ffprobe cannot read it';
    lines.push(`            ${x.outcome === 'mismatch' ? 'MEDIA_PLAN_MISMATCH' : x.code} ${inline(x.slot_id)}: ${inline(what)}`);
  }
  return lines;
}

/**
 * `--clips`'s verdict (docs/report.md, the exit codes of `fidelity compare`): `valid` when every completed measurement clip is
 * valid; `invalid` when one is not (or could not be analysed); `nothing_to_judge` when the run has no
 * completed measurement clip (every request failed): no clip was shown valid, so it is not a pass.
 */
export type ClipVerdict = 'valid' | 'invalid' | 'nothing_to_judge';

/** The verdict of an analysis (see {@link ClipVerdict}). */
export function clipVerdict(c: RunClipsAnalysis): ClipVerdict {
  return c.analysed === 0 ? 'nothing_to_judge' : c.valid === c.analysed ? 'valid' : 'invalid';
}

/** The measurement clips that are not valid (invalid, or not analysed), in run.json order. */
function invalidClips(c: RunClipsAnalysis): RunClipsAnalysis['clips'] {
  return c.clips.filter((s) => s.kind === 'measurement' && !s.clip?.valid);
}

/** The first line of `--clips`'s text: its verdict, the invalid clips named with their first code. */
function clipVerdictLine(c: RunClipsAnalysis): string {
  const verdict = clipVerdict(c);
  if (verdict === 'nothing_to_judge') return 'clips NOT judged: the run has no completed measurement clip (every measurement request failed): no clip is valid';
  if (verdict === 'valid') return `clips valid: all ${counted(c.analysed, 'measurement clip')}`;
  const bad = invalidClips(c);
  const named = bad.map((s) => `${inline(s.slot_id)} (${s.clip ? s.clip.reasons[0]?.code ?? 'INVALID' : s.failure!.code})`).join(', ');
  return `clips INVALID: ${bad.length} of ${counted(c.analysed, 'measurement clip')}: ${named}`;
}

/**
 * `--clips`: the run's clips, each on its own (docs/metrics.md, "Clip validity"): one line per clip,
 * its reasons below it; the invalid ones (and the ones that could not be analysed) first.
 */
function clipLines(c: RunClipsAnalysis): string[] {
  const counts = Object.entries(c.invalid_by_code).map(([code, n]) => `${code} ${n}`).join(', ');
  const lines = [`  clips     ${c.valid} of ${counted(c.analysed, 'measurement clip')} valid${counts ? ` (invalid: ${counts})` : ''}`];
  const bad = new Set(invalidClips(c));
  for (const s of [...bad, ...c.clips.filter((x) => !bad.has(x))]) {
    if (!s.clip) {
      lines.push(`            ${inline(s.slot_id)}: not analysed: ${s.failure!.code} ${inline(s.failure!.message)}`);
      continue;
    }
    // A null count is not 0: the build did not report the decoder's corrupt flags (docs/metrics.md).
    const unchecked = s.clip.video.corrupt_frame_count === null || (s.clip.audio !== null && s.clip.audio.corrupt_frame_count === null) ? ' (corrupt frames not checked with this ffmpeg build)' : '';
    lines.push(`            ${inline(s.slot_id)}: ${s.clip.valid ? 'valid' : 'INVALID'}${unchecked}${s.kind === 'warmup' ? ' (warm-up, not counted)' : ''}`);
    for (const r of s.clip.reasons) lines.push(`              ${r.code} ${inline(r.message)}`);
  }
  return lines;
}

function summaryLines(s: RunSummary, failed: { slot_id: string; error: string }[]): string[] {
  const digest = s.digest.checked
    ? `checked: the archive's SHA-256 ${s.digest.archive_sha256} matches ${inline(s.digest.file ?? '')}`
    : s.source.kind === 'directory'
      ? 'not applicable (a folder has no artifact digest)'
      : `not checked (no ${inline(s.source.path)}.sha256 beside the archive); archive SHA-256 ${s.digest.archive_sha256}`;
  const lines = [
    `valid run archive: ${inline(s.source.path)} (${s.source.kind})`,
    `  site      ${inline(s.site)} (${s.hardware.gpus_participating} of ${s.hardware.gpus_allocated} GPUs)`,
    `  ci        ${PROVIDER_NAMES[s.provider]}${s.run_ref !== undefined ? `: ${inline(s.run_ref)}` : ''}`,
    `  run       ${s.provider === 'gitlab' ? `job ${s.run_id}${s.gitlab ? ` in pipeline ${s.gitlab.pipeline_id}` : ''}` : `${s.run_id} attempt ${s.run_attempt}`}  ${[s.repository, s.workflow, s.job].filter((x): x is string => x !== null).map(inline).join(' / ')}`,
    `  commit    ${s.head_sha.slice(0, 12)}`,
    `  plan      ${inline(s.plan.plan_id)}  plan_sha256 ${s.plan.plan_sha256.slice(0, 12)}  (${counted(s.plan.cases, 'case')} x ${counted(s.plan.repetitions, 'repetition')}, ${counted(s.plan.warmup_runs, 'warmup')})`,
    `  slots     ${s.slots.planned} planned: warmups ${s.slots.warmup.ok} ok / ${s.slots.warmup.failed} failed, measurements ${s.slots.measurement.ok} ok / ${s.slots.measurement.failed} failed`,
  ];
  for (const f of failed) lines.push(`            failed ${inline(f.slot_id)}: ${inline(f.error)}`);
  const identity =
    s.provenance.attested_by === 'provider'
      ? `provider-attested: agrees with ${inline(s.provenance.file ?? '')} (written by fidelity fetch)`
      : 'self-attested: only the archive\'s own files (no <archive>.provenance.json beside it)';
  lines.push(`  digest    ${digest}`, `  identity  ${identity}`);
  // Links come from the provider's ids; a provider without pages (other) has none, and none is made up.
  if (s.links.run === null && s.links.artifact === null) lines.push('  links     none (provider "other": the run is named by its reference above)');
  else {
    lines.push(`  links     run       ${inline(s.links.run ?? 'none')}`);
    if (s.links.pipeline) lines.push(`            pipeline  ${inline(s.links.pipeline)}`);
    lines.push(`            artifact  ${inline(s.links.artifact ?? 'none')}`);
  }
  return lines;
}

async function run(positionals: string[], values: Record<string, unknown>, io: Io, signal: AbortSignal | undefined): Promise<number> {
  const json = Boolean(values.json);
  if (positionals.length !== 1) throw new FidelityError('USAGE', `verify needs exactly one run (a folder, .zip or .tar.gz); got ${positionals.length}`);
  const source = positionals[0]!;
  const timeoutMs = readDecodeTimeout(values);
  // ffprobe's check (a `-version` run per binary) goes on while the archive is verified; checkRunMedia
  // finds it done (resolveFfmpeg keeps it), or reports its failure as a warning as before.
  resolveFfmpeg().catch(() => {});
  // --clips decodes every clip through links in a temp folder: one that cannot be made is refused before the run is verified.
  if (values.clips) await checkTempDirs();
  const result = await verifyRun(source, { requireDigest: Boolean(values['require-digest']), requireProvider: Boolean(values.provider), limits: readLimits(values), ...(signal ? { signal } : {}) });
  if (!result.ok) {
    const errors = result.problems.map((p) => ({ code: p.code, message: p.message, ...(p.where ? { where: p.where } : {}) }));
    if (json) printJson(io, { ok: false, source, run: null, errors, warnings: [] });
    else {
      for (const p of result.problems) io.err(`error ${formatProblem(p)}\n`);
      io.err(`run archive NOT valid: ${inline(source)}: ${counted(result.problems.length, 'problem')}\n`);
    }
    return EXIT.refused;
  }
  const verified = result.run;
  try {
    const summary = summarizeRun(verified);
    const failed = verified.records.filter((r) => r.status === 'failed').map((r) => ({ slot_id: r.slot_id, error: r.error ?? '' }));
    // Each ok slot's media against the plan (docs/media.md, "Media against the plan"): warnings, never a refusal.
    const media = await checkRunMedia(verified, { ...(signal ? { signal } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    const { warnings: mediaWarnings, ...mediaCheck } = media;
    const warnings = [...result.warnings, ...mediaWarnings];
    // --clips: every ok slot's clip decoded and analysed on its own; progress on stderr, one line per clip.
    const clips = values.clips
      ? await (await import('media-fidelity')).analyseRunClips(verified, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          onProgress: ({ done, total, slot_id }) => io.err(`clips ${done}/${total} ${inline(slot_id)}\n`),
        })
      : null;
    const verdict = clips ? clipVerdict(clips) : null;
    if (json) {
      const clipSummary = clips ? { clip_summary: { analysed: clips.analysed, valid: clips.valid, invalid_by_code: clips.invalid_by_code, verdict } } : {};
      printJson(io, { ok: true, source, run: summary, failed, media: mediaCheck, ...(clips ? { clips: clips.clips } : {}), ...clipSummary, errors: [], warnings });
    } else {
      // The verdict on the clips first (the invalid ones named), then the archive's summary.
      if (clips) io.out(`${clipVerdictLine(clips)}\n`);
      const lines = summaryLines(summary, failed);
      // After the slots line and its failed requests: the media belong with the slots.
      const at = lines.findIndex((l) => l.startsWith('  digest'));
      lines.splice(at < 0 ? lines.length : at, 0, ...mediaLines(media), ...(clips ? clipLines(clips) : []));
      io.out(`${lines.join('\n')}\n`);
      for (const w of warnings) io.err(`warning ${formatProblem(w)}\n`);
    }
    // --clips: 0 only when every completed clip is valid; 5 (as the gate's "a pair is invalid") otherwise,
    // also when there was no completed clip to judge. 1 stays "internal error", 2 "archive invalid".
    return verdict === null || verdict === 'valid' ? EXIT.ok : EXIT.invalid;
  } finally {
    await verified.close();
  }
}

/** `fidelity verify`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ positionals, values, io, signal }: CommandArgs): Promise<number> {
  try {
    return await run(positionals, values, io, signal);
  } catch (error) {
    return reportFailure(io, error, Boolean(values.json));
  }
}
