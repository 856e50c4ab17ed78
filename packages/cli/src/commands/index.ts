/**
 * Every command, as data: its name, usage, summary and option table, which is
 * all that `fidelity --help`, a command's `--help` and the parser need. What a
 * command does is in its own module, imported when it runs: `fidelity --help`
 * or a usage error loads no command module and no room of the library, and
 * `fidelity verify` loads verify's module and what it imports, not compare's
 * (docs/performance.md, "Start-up"). This module imports only the library's
 * light entry (`media-fidelity/base`), through options.ts.
 */
import { METRIC_NAMES, METRIC_SETS } from 'media-fidelity/base';
import {
  ciOptions,
  decodeTimeoutOption,
  DEFAULT_DEMO_OUT,
  gateOptionSpecs,
  limitOptions,
  policyOption,
  progressOption,
  threadsOption,
} from '../options.js';
import type { Command, CommandArgs } from './types.js';

/** A command's `run`, which imports the command's module on first call and runs its `runCommand`. */
function runFrom(load: () => Promise<{ runCommand: (args: CommandArgs) => Promise<number> }>): Command['run'] {
  return async (args) => (await load()).runCommand(args);
}

/** Every command, in the order `fidelity --help` lists them. */
export const commands: Command[] = [
  {
    name: 'doctor',
    args: '',
    summary: 'show the ffmpeg/ffprobe pair that would run (source, version, SHA-256, warnings) and the default thread count',
    options: {},
    run: runFrom(() => import('./doctor.js')),
  },
  {
    name: 'verify',
    args: '<run>',
    summary: 'check one run archive (folder, .zip or .tar.gz): seal, identity, plan, records, and each ok slot\'s media against the plan (warnings); exit 0 valid, 2 invalid; with --clips 5 when a completed clip is invalid or none completed',
    options: {
      'require-digest': { type: 'boolean', description: 'refuse an archive without <archive>.sha256 beside it (and any folder)' },
      provider: { type: 'boolean', description: 'require the provider\'s record (<archive>.provenance.json from fidelity fetch) and check the archive against it; offline' },
      clips: { type: 'boolean', description: 'also decode every ok slot\'s clip and check it on its own (blank, frozen, silent, timestamps, audio gaps: docs/metrics.md, "Clip validity"); a clip whose media differ from the plan is invalid (MEDIA_PLAN_MISMATCH first), one holding more than twice the plan\'s pixels is reported without being decoded; progress on stderr' },
      'decode-timeout': { ...decodeTimeoutOption, description: 'seconds each ffmpeg/ffprobe child may run before it is killed with its process group (DECODE_TIMEOUT for that clip); default 600 for a clip\'s decoders, 120 for the probes' },
      ...limitOptions,
    },
    run: runFrom(() => import('./verify.js')),
  },
  {
    name: 'power',
    args: '<run>',
    summary: 'board energy, GPU accounting and server timing of one run archive (exit 0 when the archive is valid, 2 when not); valid clips judged as the report judges them',
    options: {
      'max-gap': { type: 'string', value: 'S', description: 'largest allowed step between two readings of one GPU, in seconds (default 3)' },
      'ok-records': { type: 'boolean', description: 'count ok measurement records as valid clips without decoding them (valid_clips_basis ok_records); default: decode and judge every ok clip, as compare does' },
      'decode-timeout': decodeTimeoutOption,
    },
    run: runFrom(() => import('./power.js')),
  },
  {
    name: 'compare',
    args: '<baseline> <candidate> [<candidate> ...] (--out <dir> | --shard K/N|auto [--shards N] --partial <dir>)',
    summary: 'verify every run, pair slots, measure every frame and sample, and write one portable bundle',
    options: {
      out: { type: 'string', short: 'o', value: '<dir>', description: 'bundle folder (created; a previous bundle there is replaced)' },
      ...gateOptionSpecs,
      'require-digest': { type: 'boolean', description: 'refuse a run without an artifact digest (<archive>.sha256)' },
      'require-provider': { type: 'boolean', description: 'refuse a run whose identity is not attested by the CI provider (<archive>.provenance.json from fidelity fetch); offline' },
      force: { type: 'boolean', description: 'replace a non-empty --out that is not a sealed fidelity bundle' },
      'decode-timeout': decodeTimeoutOption,
      shard: { type: 'string', value: 'K/N|auto', description: 'measure only shard K of N (K/N, from 0) or take it from Slurm / Kubernetes (auto); writes --partial, see docs/scale-out.md' },
      shards: { type: 'string', value: 'N', description: 'with --shard auto: the shard count N (Kubernetes; with Slurm, the array index is then the shard index)' },
      partial: { type: 'string', value: '<dir>', description: 'with --shard: the partial folder to write (merge turns all partials into the bundle)' },
      calibration: { type: 'string', value: '<file>', description: 'judge every pair against this noise sample too (calibration.json of fidelity calibrate)' },
      noise: { type: 'string', multiple: true, value: '<run>', description: 'same-hardware runs to calibrate from in this command (repeat the option per run)' },
      alpha: { type: 'string', value: 'A', description: 'significance level of the noise verdicts (default 0.05)' },
      repeatability: {
        type: 'boolean',
        description: "also measure the baseline's own repetitions of each case: every repetition whose bytes differ from repetition 0 of the same run, against it, shown beside each case (not with --shard: give it to merge)",
      },
      metrics: {
        type: 'string',
        value: 'SET|LIST',
        description: `the metrics to compute: a set (${Object.keys(METRIC_SETS).join(', ')}; default: default) or a comma-separated list of ${METRIC_NAMES.join(', ')}; see docs/metrics.md`,
      },
      ...ciOptions,
      threads: threadsOption,
      policy: policyOption,
      progress: progressOption,
    },
    run: runFrom(() => import('./compare.js')),
  },
  {
    name: 'merge',
    args: '<baseline> <candidate> [<candidate> ...] --partials <dir> [--partials <dir> ...] --out <dir>',
    summary: 'check the partials of every shard against the runs, the media and each other, re-measure a sample of pairs, and write the bundle one compare would have written',
    options: {
      partials: { type: 'string', multiple: true, value: '<dir>', description: 'a partial folder, or a folder whose subfolders are partials (repeat for more)' },
      out: { type: 'string', short: 'o', value: '<dir>', description: 'bundle folder (created; a previous bundle there is replaced)' },
      ...gateOptionSpecs,
      'require-digest': { type: 'boolean', description: 'refuse a run without an artifact digest (<archive>.sha256)' },
      'require-provider': { type: 'boolean', description: 'refuse a run whose identity is not attested by the CI provider (docs/provenance.md)' },
      calibration: { type: 'string', value: '<file>', description: 'judge every pair against this noise sample too, as compare --calibration does' },
      alpha: { type: 'string', value: 'A', description: 'significance level of the noise verdicts (default 0.05)' },
      repeatability: { type: 'boolean', description: "measure the baseline's own repetitions of each case against its repetition 0, as compare --repeatability does (merge measures them from the runs)" },
      force: { type: 'boolean', description: 'replace a non-empty --out that is not a fidelity bundle' },
      ...ciOptions,
      policy: policyOption,
      progress: progressOption,
      threads: threadsOption,
      remeasure: { type: 'string', value: 'N|all', description: 'pairs (and clips analysed on their own) of each partial merge measures again and requires identical: a whole number (default 1, chosen at random; more than a partial holds: all of them) or all' },
      'decode-timeout': {
        ...decodeTimeoutOption,
        description: "seconds each ffmpeg/ffprobe child of merge may run before it is killed (DECODE_TIMEOUT); default: each partial's pairs with the limit its shard ran with (--decode-timeout given to the shard, else 600)",
      },
    },
    run: runFrom(() => import('./merge.js')),
  },
  {
    name: 'calibrate',
    args: '<run> [<run> ...] --out <file>',
    summary: 'measure same-hardware pairs (repetitions, reruns) and write the noise floor: calibration.json',
    options: {
      out: { type: 'string', short: 'o', value: '<file>', description: 'the calibration file to write' },
      'policy-out': { type: 'string', value: '<file>', description: 'also write a policy whose thresholds are the worst same-hardware values' },
      alpha: { type: 'string', value: 'A', description: 'significance level named in the calibrated policy (default 0.05)' },
      'require-digest': { type: 'boolean', description: 'refuse a run without an artifact digest (<archive>.sha256)' },
      threads: threadsOption,
      progress: progressOption,
      force: { type: 'boolean', description: 'replace an existing --out or --policy-out that is not an earlier calibration or calibrated policy' },
    },
    run: runFrom(() => import('./calibrate.js')),
  },
  {
    name: 'verify-bundle',
    args: '<dir>',
    summary: 're-hash every file of a bundle against SHA256SUMS and resolve every link in its pages and report.json',
    options: {},
    run: runFrom(() => import('./verify-bundle.js')),
  },
  {
    name: 'diff',
    args: '<old> <new>',
    summary: "compare two bundles' (or report.json files') measured values pair by pair: exit 0 unchanged, 1 changed, 2 refused",
    options: {
      tolerance: { type: 'string', value: 'ABS', description: 'numbers at most this far apart are equal (default 0: exact)' },
      'rel-tolerance': { type: 'string', value: 'REL', description: 'numbers whose difference is at most this fraction of the larger are equal (default 0: exact)' },
      all: { type: 'boolean', description: 'list every difference (default: the largest 20 changed values, and 20 of each other kind)' },
    },
    run: runFrom(() => import('./diff.js')),
  },
  {
    name: 'demo',
    args: '',
    summary: 'make synthetic H200/B200/H100 runs and an H200 rerun, calibrate the H200 noise floor, and compare H200 against B200 and H100, end to end',
    options: {
      out: { type: 'string', short: 'o', value: '<dir>', description: `bundle folder (default ./${DEFAULT_DEMO_OUT}; a previous bundle there is replaced)` },
      runs: { type: 'string', value: '<dir>', description: 'keep the generated runs in this folder (default: a temp folder, removed afterwards)' },
      full: { type: 'boolean', description: 'the formal workload size (1344x768, 8 s, 20 cases) instead of the small one' },
      force: { type: 'boolean', description: 'replace a non-empty --out that is not a sealed fidelity bundle, and runs already in --runs' },
      'decode-timeout': decodeTimeoutOption,
      threads: threadsOption,
      policy: policyOption,
      progress: progressOption,
    },
    run: runFrom(() => import('./demo.js')),
  },
  {
    name: 'generate',
    args: '--out <dir>',
    summary: 'write synthetic H200 (baseline), B200 and H100 run archives with documented, controlled differences',
    options: {
      out: { type: 'string', short: 'o', value: '<dir>', description: 'folder to write the runs into (one sub-folder per site)' },
      format: { type: 'string', value: 'dir|zip|tar.gz', description: 'write each run as a folder (dir, the default), a .zip like a CI artifact download, or a .tar.gz; archives get a <file>.sha256 digest beside them' },
      full: { type: 'boolean', description: 'the formal workload size (1344x768, 24 fps, 8 s, 20 cases) instead of the small one' },
      seconds: { type: 'string', value: 'N', description: 'clip length in seconds (default 1 small, 8 full)' },
      repetitions: { type: 'string', value: 'N', description: 'measurement repetitions of every case (default 1)' },
      cases: { type: 'string', value: 'N', description: 'keep only the first N plan cases (for benchmarks; may drop controlled differences)' },
      sites: { type: 'string', value: 'H200,B200,H100', description: 'which runs to write, comma-separated (default H200,B200,H100)' },
      force: { type: 'boolean', description: 'replace runs that already exist in --out' },
      progress: progressOption,
    },
    run: runFrom(() => import('./generate.js')),
  },
  {
    name: 'fetch',
    args: '<owner>/<repo> <run_id> --out <dir>',
    summary: "download a run's artifact from GitHub Actions with the provider's record of it (token from GITHUB_TOKEN or GH_TOKEN); exit 0 written, 2 refused",
    options: {
      out: { type: 'string', short: 'o', value: '<dir>', description: 'folder for <name>.zip, <name>.zip.sha256 and <name>.zip.provenance.json (created when missing)' },
      attempt: { type: 'string', value: 'N', description: "the run attempt (default: the run's latest)" },
      artifact: { type: 'string', value: 'NAME', description: 'the artifact name (default: the one named <prefix>-<run_id>-<attempt>)' },
      'api-url': { type: 'string', value: 'URL', description: 'REST API root (default https://api.github.com; GitHub Enterprise: https://HOST/api/v3)' },
      force: { type: 'boolean', description: 'replace files of the same names in --out' },
      progress: progressOption,
    },
    run: runFrom(() => import('./fetch.js')),
  },
];
