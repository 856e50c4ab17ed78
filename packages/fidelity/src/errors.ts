/**
 * One error class for the whole library. Every refusal carries a stable reason
 * code from the catalogue below, so tools can branch on `code` and people can
 * read `message`; the original failure, when there is one, stays in `cause`.
 */

export const ReasonCodes = {
  // Setup
  FFMPEG_NOT_FOUND: 'no usable ffmpeg/ffprobe binary was found',
  FFMPEG_BROKEN: 'an ffmpeg/ffprobe binary was found but does not run',
  INVALID_ARGUMENT: 'a parameter has the wrong type or value',
  INTERNAL: 'an unexpected internal failure',
  ABORTED: 'the operation was cancelled',
  // Run archive (archive/, docs/run-archive.md; documented in docs/reason-codes.md)
  SOURCE_NOT_FOUND: 'the run path does not exist',
  RUN_INVALID: 'the run archive failed verification (see problems)',
  RUN_CLOSED: 'the verified run was already closed',
  ARCHIVE_UNREADABLE: 'not a directory, zip or tar.gz, or an entry of it cannot be read',
  ARCHIVE_EMPTY: 'the archive holds no files',
  ARCHIVE_LAYOUT: 'the files are neither at the root nor under one top-level folder',
  ARCHIVE_UNSAFE_ENTRY: 'an entry name is absolute, climbs with "..", or is not a plain relative path',
  ARCHIVE_LINK_ENTRY: 'an entry is a symbolic or hard link (links are never followed)',
  ARCHIVE_SPECIAL_ENTRY: 'an entry is a device, FIFO, socket or of an unknown type',
  ARCHIVE_DUPLICATE_ENTRY: 'two entries have the same name',
  ARCHIVE_NAME_COLLISION: 'two names differ only in case or Unicode form, or a name is both a file and a folder',
  ARCHIVE_UNKNOWN_FILE: 'a file the run archive format does not define',
  LIMIT_FILES: 'the archive holds more files than the limit',
  LIMIT_FILE_SIZE: 'a file is larger than the per-file limit',
  LIMIT_TOTAL_SIZE: 'the files add up to more than the total limit',
  LIMIT_METADATA_SIZE: 'a metadata file (read into memory) is larger than its limit',
  SEAL_MISSING: 'SHA256SUMS is absent',
  SEAL_MALFORMED_LINE: 'a SHA256SUMS line is not "<64 lowercase hex>  <canonical relative path>"',
  SEAL_ABSOLUTE_PATH: 'a SHA256SUMS line names an absolute path',
  SEAL_PATH_TRAVERSAL: 'a SHA256SUMS line names a path containing ".."',
  SEAL_DUPLICATE_LINE: 'a path is listed twice in SHA256SUMS',
  SEAL_LISTS_ITSELF: 'SHA256SUMS lists itself',
  SEAL_MISSING_FILE: 'SHA256SUMS lists a file the archive does not hold',
  SEAL_EXTRA_FILE: 'the archive holds a file SHA256SUMS does not list',
  SEAL_HASH_MISMATCH: 'a file does not hash to its SHA256SUMS digest',
  DIGEST_MISSING: 'an artifact digest was required but there is no <archive>.sha256',
  DIGEST_MALFORMED: 'the <archive>.sha256 file is not "sha256:<64 hex>" or "<64 hex>"',
  DIGEST_MISMATCH: 'the archive does not hash to its artifact digest',
  DIGEST_NAME_MISMATCH: 'the name in <archive>.sha256 is not the archive file name (warning)',
  CI_MISSING: 'ci.json is absent',
  CI_INVALID_JSON: 'ci.json is not valid UTF-8 JSON',
  CI_SCHEMA: 'ci.json does not match its schema',
  CI_SCHEMA_VERSION: 'ci.json has an unsupported schema_version',
  CI_PROVIDER: 'ci.json provider is not github, gitlab or other',
  CI_RUN_ID: 'ci.json run_id is not a positive integer',
  CI_RUN_ATTEMPT: 'ci.json run_attempt is not an integer of at least 1',
  CI_HEAD_SHA: 'ci.json head_sha is not 40 hex digits',
  CI_REPOSITORY: 'ci.json repository is not owner/name (GitLab: project_path is not group[/subgroup...]/project)',
  CI_ARTIFACT_NAME_SUFFIX: 'ci.json artifact.name does not end with -<run_id>-<run_attempt>',
  CI_GPU_COUNT: 'ci.json gpus_participating exceeds gpus_allocated',
  PLAN_MISSING: 'plan.json is absent',
  PLAN_INVALID_JSON: 'plan.json is not valid UTF-8 JSON',
  PLAN_SCHEMA: 'plan.json does not match its schema',
  PLAN_DUPLICATE_CASE: 'plan.json names the same case_id twice',
  RUN_MISSING: 'run.json is absent',
  RUN_INVALID_JSON: 'run.json is not valid UTF-8 JSON',
  RUN_SCHEMA: 'run.json does not match its schema',
  RUN_ID_MISMATCH: 'run.json run_id differs from ci.json',
  RUN_ATTEMPT_MISMATCH: 'run.json run_attempt differs from ci.json',
  PLAN_SHA_MISMATCH: 'run.json plan_sha256 is not the SHA-256 of plan.json',
  RUN_GPU_COUNT_MISMATCH: 'run.json expected_gpu_count differs from ci.json gpus_participating',
  RUN_WINDOW_INVALID: 'run.json measurement_window ends before it starts',
  SLOT_MISSING: 'a planned slot has no record',
  SLOT_DUPLICATE: 'a slot has more than one record',
  SLOT_ORDER: 'records are not in the planned order (warmups, then repetition x case)',
  SLOT_UNEXPECTED: 'a record names a slot the plan does not have',
  SLOT_ID_INVALID: 'a slot_id is neither warmup-NNN nor measurement-rNNN-cNNN',
  WARMUP_NAME: 'a warmup record is not named warmup-NNN',
  WARMUP_COUNT: 'the number of warmup records differs from plan.warmup_runs',
  RECORD_KIND_MISMATCH: 'a record kind disagrees with its slot_id',
  RECORD_UNKNOWN_CASE: 'a record names a case_id the plan does not have',
  RECORD_CASE_MISMATCH: 'a measurement record case_id is not the plan case of its slot',
  RECORD_PROMPT_MISMATCH: 'a record prompt differs from its plan case',
  RECORD_SEED_MISMATCH: 'a record seed differs from its plan case',
  RECORD_REPETITION_MISMATCH: 'a measurement record repetition disagrees with its slot_id',
  RECORD_LATENCY_INVALID: 'a record latency_s is negative or not a number',
  RECORD_OK_WITHOUT_MEDIA: 'an ok record has no media',
  RECORD_OK_WITH_ERROR: 'an ok record carries an error string (warning)',
  RECORD_FAILED_WITHOUT_ERROR: 'a failed record has no error string',
  RECORD_WINDOW_INVALID: 'a record window ends before it starts',
  RECORD_SERVER_TIMING_ORDER: 'a record server_timing events are not in pipeline order (warning)',
  MEDIA_PATH_UNSAFE: 'a media path is absolute, climbs with "..", or is not a plain relative path',
  MEDIA_PATH_MISMATCH: 'a media path is not media/<slot_id>.mp4',
  MEDIA_MISSING: 'a record media file is not in the archive',
  MEDIA_NOT_SEALED: 'a record media file is not listed in SHA256SUMS',
  MEDIA_ON_FAILED_RECORD: 'a failed record names a media file',
  MEDIA_UNREFERENCED: 'a file under media/ belongs to no ok record',
  MEDIA_CHANGED: 'a media file changed after verification',
  // Run archive: bounded work on hostile input (limits, strict JSON, sane number ranges)
  LIMIT_ENTRIES: 'the archive holds more entries of any kind (files, folders, links) than the limit',
  LIMIT_DECOMPRESSED_SIZE: 'the tar.gz inflates to more bytes than the limit',
  LIMIT_COMPRESSION_RATIO: 'the archive inflates more bytes per compressed byte than the limit (a decompression bomb)',
  JSON_BOM: 'a JSON file of the archive starts with a byte order mark',
  JSON_DUPLICATE_KEY: 'a JSON object of the archive names the same key twice',
  JSON_TOO_DEEP: 'a JSON file of the archive nests objects and arrays deeper than 64',
  VALUE_OUT_OF_RANGE: 'a number of the archive is outside its sane range (GPU counts, media specs, windows, latencies, timings)',
  // Command line (packages/cli)
  USAGE: 'the command line is wrong (unknown command or option, missing argument)',
  // compare() refusals and the bundle folder (docs/report.md)
  DUPLICATE_RUN: 'the same run (run_id-run_attempt) was given twice',
  PLAN_MISMATCH: 'the runs did not execute the same workload (the differing fields are named)',
  // Calibration (calibrate/, docs/calibration.md)
  CALIBRATION_NO_PAIRS: 'no same-hardware pair can be formed from the given runs (or none was measured)',
  CALIBRATION_INVALID: 'the calibration file is unreadable, not JSON, or fails its schema',
  CALIBRATION_MISMATCH_DEFINITIONS: 'the calibration was measured with another metric definitions version',
  CALIBRATION_MISMATCH_DECODER: 'the calibration was decoded by another ffmpeg binary (SHA-256)',
  CALIBRATION_MISMATCH_PLAN: 'the calibration is of another workload (plan_sha256)',
  CALIBRATION_MISMATCH_HARDWARE: "the baseline's hardware class is not among the calibration's",
  POLICY_INVALID: 'the policy file is unreadable, not JSON, or fails its schema',
  OUT_NOT_EMPTY: '--out is a non-empty folder that is not a fidelity bundle (use --force)',
  OUT_NOT_DIRECTORY: '--out is a file or a symbolic link',
  OUT_INSIDE_INPUT: '--out lies inside an input run (runs are read-only)',
  OUT_CONTAINS_INPUT: '--out contains an input run (replacing it would delete the run)',
  // --out safety: locking and writability (output/out-guard.ts)
  OUT_LOCKED: 'another comparison is writing the same --out right now',
  OUT_NOT_WRITABLE: 'the folder that would hold --out cannot be created or written (read-only, a full disk, a file past the size limit)',
  OUT_EXISTS: 'an output file (calibrate --out, --policy-out) exists and is not this command\'s earlier output, or is a folder (use --force)',
  // verify-bundle
  BUNDLE_NOT_FOUND: 'the bundle path is not a folder',
  BUNDLE_SEAL_MISSING: 'the bundle has no SHA256SUMS',
  BUNDLE_SEAL_MALFORMED: 'a bundle SHA256SUMS line is malformed, unsafe, duplicated or self-listing',
  BUNDLE_FILE_MISSING: 'a file listed in the bundle SHA256SUMS is missing',
  BUNDLE_FILE_EXTRA: 'a bundle file is not listed in SHA256SUMS, or is a link or special file',
  BUNDLE_FILE_KIND: 'a sealed file is not one compare writes (place, name or report key), or its bytes are not the kind its name says',
  BUNDLE_FILE_CHANGED: 'a bundle file does not hash to its SHA256SUMS line',
  BUNDLE_REPORT_MISSING: 'report.json is missing or not sealed',
  BUNDLE_REPORT_INVALID: 'report.json is not JSON or does not match schema_version 1',
  BUNDLE_INDEX_MISSING: 'index.html is missing or not sealed',
  BUNDLE_LINK_BROKEN: 'a page link or report.json path does not resolve to a sealed bundle file',
  BUNDLE_LINK_EXTERNAL: 'a link leaves the bundle for anything but the runs\' own server over https',
  // verify-bundle: what a page does in a browser (scan.ts, csp.ts), and ci.json server_url
  BUNDLE_PAGE_CSP: 'a page does not begin its <head> with a Content-Security-Policy meta as strict as required',
  BUNDLE_PAGE_ENCODING: 'a page is not UTF-8, or does not declare <meta charset="utf-8"> right after the policy in its first 1024 bytes',
  BUNDLE_PAGE_SCRIPT: 'a page has a script the policy does not list by hash (src, other body, other type, event handler)',
  BUNDLE_PAGE_REFRESH: 'a page has <meta http-equiv="refresh">',
  BUNDLE_PAGE_SRCDOC: 'a page has a srcdoc attribute',
  BUNDLE_PAGE_ELEMENT: 'a page has a <base> or <noscript> element',
  BUNDLE_PAGE_TYPE: 'a bundle file of a type a browser opens as a scriptable document other than .html (.svg, .xhtml, .xml …)',
  CI_SERVER_URL: 'ci.json server_url is not https://host[:port][/path] without credentials, query or fragment',
  // Pair reasons (comparisons[].pairs[].reasons): why a planned pair is invalid
  FAILED_BASELINE: 'the baseline request failed',
  FAILED_CANDIDATE: 'the candidate request failed',
  FAILED_BOTH: 'the request failed on both sides',
  INCOMPATIBLE_SIZE: 'the two video streams differ in width or height',
  INCOMPATIBLE_FRAME_COUNT: 'the two video streams differ in frame count',
  INCOMPATIBLE_TIMESTAMPS: 'the frame timestamps differ by more than one time-base tick',
  INCOMPATIBLE_AUDIO_PRESENCE: 'one side has audio and the other does not',
  INCOMPATIBLE_SAMPLE_RATE: 'the audio streams differ in sample rate',
  INCOMPATIBLE_CHANNELS: 'the audio streams differ in channel count',
  INCOMPATIBLE_SAMPLE_COUNT: 'the audio streams differ in sample count',
  INCOMPATIBLE_PIXEL_FORMAT: 'the two video streams differ in chroma layout',
  UNSUPPORTED_PIXEL_FORMAT: 'a video stream is not 8-bit planar YUV',
  NO_VIDEO_STREAM: 'an MP4 has no video stream',
  UNDECODABLE: 'ffmpeg could not decode a side',
  DECODE_TIMEOUT: 'a decoder ran past its time limit and was stopped',
  // Pair reasons: stream layout, display and timing (media/compat.ts, docs/media.md)
  EXTRA_VIDEO_STREAM: 'a side has more than one video stream (cover art included); only one is measured',
  EXTRA_AUDIO_STREAM: 'a side has more than one audio stream; only one is measured',
  EXTRA_STREAM: 'a side has a stream that is neither video nor audio (subtitles, data, attachment)',
  INCOMPATIBLE_DISPLAY_MATRIX: 'the video display matrices (rotation, flip) differ',
  INCOMPATIBLE_ASPECT_RATIO: 'the video sample aspect ratios differ (a player stretches one picture differently)',
  INCOMPATIBLE_VIDEO_EDIT_LIST: 'the video edit lists show different delays, durations or rates',
  INCOMPATIBLE_AUDIO_EDIT_LIST: 'the audio edit lists show different delays, durations or rates',
  INCOMPATIBLE_AUDIO_START: 'the audio starts at a different time relative to the video (more than one sample apart)',
  // Pair reason, and a warning of fidelity verify: media against the plan (media/plan-conformance.ts, docs/media.md)
  MEDIA_PLAN_MISMATCH: "a slot's media differ from the plan's video / audio spec (width, height, fps, frames, sample rate, channels)",
  // Media extraction for the bundle's stills and WAV, and the metric kernels (programming errors if they escape)
  MEDIA_EXTRACT_FAILED: 'ffmpeg could not extract a frame or the audio for the bundle assets',
  FRAME_NOT_FOUND: 'the requested frame index is past the end of the stream',
  NO_FRAMES: 'a metric summary was asked of a stream without frames',
  FRAME_TOO_SMALL: 'a plane is smaller than the metric window',
  // The synthetic run generator (fidelity generate, fidelity demo)
  OUTPUT_EXISTS: 'a run folder to generate already exists (use --force)',
  OUTPUT_UNWRITABLE: 'the generator cannot create its output folder',
  SYNTH_ENCODE_FAILED: 'ffmpeg failed while encoding a synthetic clip',
  // Power (runs[].power.reasons; power/reasons.ts says when each applies)
  WINDOW_MISSING: 'run.json has no measurement_window (power: nothing to integrate; accounting: no GPU-seconds)',
  WINDOW_INVALID: 'the measurement window is not finite or does not end after it starts',
  TELEMETRY_MISSING: 'the run has telemetry but no telemetry/gpu_metrics.csv',
  TELEMETRY_EMPTY: 'gpu_metrics.csv has no data rows',
  COLUMN_MISSING_TIMESTAMP: 'the telemetry CSV has no timestamp column',
  COLUMN_MISSING_INDEX: 'the telemetry CSV has no GPU identity column',
  COLUMN_MISSING_POWER: 'the telemetry CSV has no power draw column',
  MALFORMED_ROW_IN_WINDOW: 'a telemetry row inside the window cannot be parsed',
  NO_SAMPLES_IN_WINDOW: 'no power reading lies inside the window',
  GPU_COUNT_MISMATCH: 'the telemetry covers a different number of GPUs than run.json expects',
  WINDOW_NOT_BRACKETED: 'a GPU has no reading at or before the window start, or none at or after its end',
  GAP_EXCEEDED: 'two consecutive readings of a GPU are further apart than the maximum gap',
  // Server timing (runs[].timing)
  TIMING_ABSENT: 'a record has no server_timing',
  TIMING_NOT_MONOTONIC: 'a record\'s server_timing stamps decrease along the pipeline',
  TIMING_CLOCK_MISMATCH: 'the run\'s records use more than one clock id',
  // GPU accounting (runs[].accounting)
  NO_VALID_CLIPS: 'the run has no ok measurement record, so nothing is per valid clip',
  POWER_UNAVAILABLE: 'the run has no valid power figure',
  ENERGY_NOT_MEASURED_ON_BASIS: 'the telemetry measured a different GPU count than this basis; energy is never scaled',
  EXPECTED_GPU_COUNT_DIFFERS: 'run.json expected_gpu_count differs from ci.json gpus_participating',
  // Provider attestation: fidelity fetch, verify --provider, compare --require-provider (docs/provenance.md)
  FETCH_RUN_NOT_FOUND: 'the CI provider has no such run (or the token cannot see it)',
  FETCH_ATTEMPT_NOT_FOUND: 'the run has no such attempt',
  FETCH_RUN_IN_PROGRESS: 'the run attempt has not completed, so its artifact may still change',
  FETCH_ARTIFACT_MISSING: 'the run has no artifact of that name (or none named <prefix>-<run_id>-<attempt>)',
  FETCH_ARTIFACT_AMBIGUOUS: 'more than one artifact fits; name one with --artifact',
  FETCH_ATTEMPT_MISMATCH: 'the artifact belongs to another attempt than the one asked for',
  FETCH_ARTIFACT_EXPIRED: 'the artifact expired: the provider no longer holds its bytes',
  FETCH_DIGEST_MISSING: 'the provider reports no sha256 digest for the artifact',
  FETCH_DIGEST_MISMATCH: 'the downloaded bytes do not hash to the digest the provider reports',
  FETCH_PROVIDER_INCONSISTENT: 'the provider\'s answers contradict each other (run, attempt, artifact)',
  FETCH_RATE_LIMITED: 'the provider\'s API rate limit was exceeded and does not reset soon enough',
  FETCH_ACCESS_DENIED: 'the provider refused the token (or its absence)',
  FETCH_PROVIDER_ERROR: 'the provider\'s API or storage failed (HTTP error or network)',
  FETCH_OUT_EXISTS: 'a file fetch would write already exists (use --force)',
  FETCH_TIMEOUT: 'the provider did not answer in time (no answer within the connect limit, a stalled answer, or past the total limit)',
  PROVENANCE_MISSING: 'provider attestation was required but there is no <archive>.provenance.json (or the run is not a zip)',
  PROVENANCE_MALFORMED: 'the provenance file is not JSON or does not match its schema',
  PROVENANCE_UNSUPPORTED: 'provider attestation was required for a run whose CI has none here: only GitHub Actions runs can be fetched and attested',
  PROVENANCE_RUN_MISMATCH: 'ci.json run_id or run_attempt differs from the provider\'s',
  PROVENANCE_REPOSITORY_MISMATCH: 'ci.json repository or server_url differs from the provider\'s',
  PROVENANCE_HEAD_SHA_MISMATCH: 'ci.json head_sha differs from the provider\'s',
  PROVENANCE_ARTIFACT_MISMATCH: 'ci.json artifact name or id differs from the provider\'s',
  PROVENANCE_DIGEST_MISMATCH: 'the zip does not hash to the digest the provider reported for it',
  // Scale-out: reproducible time, compare --shard and merge (docs/scale-out.md)
  SOURCE_DATE_EPOCH_INVALID: 'SOURCE_DATE_EPOCH is set but is not a whole number of seconds',
  SHARD_ENV_MISSING: '--shard auto found neither a Slurm array task nor a Kubernetes completion index',
  SHARD_ENV_INCONSISTENT: '--shard auto found scheduler variables that are malformed or contradict each other',
  PARTIAL_UNREADABLE: 'a partial folder is missing, holds no partial.json, or partial.json fails its schema',
  PARTIAL_SEAL: 'a partial\'s SHA256SUMS is missing or malformed, or a file is missing, extra or changed',
  PARTIAL_TOOL_MISMATCH: 'a partial was written by another fidelity version than the merge',
  PARTIAL_DECODER_MISMATCH: 'the partials were measured with different ffmpeg/ffprobe binaries',
  PARTIAL_FOREIGN_RUNS: 'a partial was measured on other runs (ids, attempts, seals or order) than the merge was given',
  PARTIAL_POLICY_MISMATCH: 'the partials were judged with different policies, or not with the one given to merge',
  PARTIAL_SHARD_COUNT_MISMATCH: 'the partials split the pairs into different shard counts N',
  PARTIAL_PAIRS_MISMATCH: 'a partial does not hold exactly the pairs of its shard index, as these runs number them',
  PARTIAL_PAIR_DUPLICATE: 'two partials hold the same pair',
  PARTIAL_MEASUREMENT_INVALID: 'a partial\'s measurement contradicts itself (a figure out of range, a per-frame series of the wrong length, an aggregate its series does not give) or its frames.csv',
  PARTIAL_MEASUREMENT_MISMATCH: 'a partial\'s measurement differs from what merge found itself: its probe of the media, or its own measurement of the pair (--remeasure)',
  SHARD_DUPLICATE: 'the same shard index is given by more than one partial',
  SHARD_MISSING: 'a shard index has no partial (the message gives the Slurm --array= of those to rerun)',
  // Clip validity: each clip on its own before its pair is judged (metrics/clip-checks.ts, docs/metrics.md "Clip validity")
  CLIP_TIMESTAMPS: 'a clip has a video or audio frame without a timestamp, or one not after the one before',
  CLIP_CORRUPT_FRAMES: 'the decoder flagged a frame of a clip corrupt',
  CLIP_GEOMETRY_CHANGED: 'a frame of a clip has another size than its first',
  CLIP_AUDIO_EMPTY: 'a clip\'s audio stream decodes to no sample',
  CLIP_AUDIO_GAP: 'a clip\'s audio timestamps jump (a gap or an overlap) by more than a tick or a sample',
  CLIP_CADENCE: 'a clip\'s shortest or longest frame interval is off the plan\'s 1/fps',
  CLIP_NO_MOTION: 'a clip\'s picture does not move (mean adjacent-frame MAE at most 1/1024)',
  CLIP_SILENT: 'a clip\'s audio is silent on every channel (RMS at most 1e-4)',
  CLIP_BLANK: 'a clip is black or white in every frame, or in more frames than the plan allows',
  CLIP_FROZEN: 'more of a clip\'s frame steps are frozen than the plan allows',
  CLIP_DURATION: 'a clip\'s video lasts longer or shorter than the plan says',
  CLIP_AV_SKEW: 'a clip\'s audio starts or ends further from its video than the plan allows',
  // Metric sets: --metrics / compare({ metrics }) (metrics/registry.ts, docs/metrics.md)
  POLICY_METRIC_NOT_COMPUTED: 'an enabled policy check reads a metric the chosen metric set does not compute',
  PARTIAL_METRICS_MISMATCH: 'the partials were measured with different metric sets',
  // diff: two reports' measured values (diff/, docs/diff.md)
  DIFF_INPUT_NOT_FOUND: 'a side of the diff is neither a bundle folder nor a report.json file',
  DIFF_REPORT_TOO_LARGE: 'a report.json is larger than the limit and was not read',
  DIFF_REPORT_INVALID: 'a report.json is not JSON, has a byte order mark, a duplicate key or deep nesting, fails the report schema, or names a pair, run or comparison twice',
  // JUnit XML and the job summary of compare / merge (ci/, docs/ci.md)
  CI_OUTPUT_INVALID: '--junit or --summary names a folder, a place inside --out or an input run, or a file that cannot be written',
} as const;

export type KnownReasonCode = keyof typeof ReasonCodes;

/** Where a problem was found: a file of the archive, and optionally a line or a JSON path. */
export interface ProblemLocation {
  file?: string;
  line?: number;
  path?: string;
}

/** One thing found wrong (or, as a warning, worth knowing): a reason code, a message for people, and where it was found. */
export interface Problem {
  code: string;
  message: string;
  where?: ProblemLocation;
}

/**
 * Every refusal the library makes: an Error with a stable `code` (a key of {@link ReasonCodes},
 * documented in docs/reason-codes.md) and, when several things were wrong at once, every one of them
 * in `problems`.
 *
 * @example
 * ```ts
 * try {
 *   await compare('runs/h200', ['runs/b200.zip'], { out: 'bundle' });
 * } catch (error) {
 *   if (!isFidelityError(error)) throw error;
 *   console.error(error.code, error.message);
 *   for (const p of error.problems) console.error(' ', p.code, p.message, p.where);
 * }
 * ```
 */
export class FidelityError extends Error {
  override readonly name = 'FidelityError';
  readonly code: string;
  /** Every problem found, when the refusal has more than one reason (verification, comparison). */
  readonly problems: Problem[];

  constructor(code: string, message: string, options: { cause?: unknown; problems?: Problem[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.problems = options.problems ?? [{ code, message }];
  }
}

/** Whether `value` is a {@link FidelityError} (a refusal with a reason code) rather than an unexpected failure. */
export function isFidelityError(value: unknown): value is FidelityError {
  return value instanceof FidelityError;
}

/** sharp's convention: every invalid parameter gets the same shaped message. */
export function invalidParameter(name: string, expected: string, received: unknown): FidelityError {
  const shown = typeof received === 'string' ? JSON.stringify(received) : String(received);
  return new FidelityError('INVALID_ARGUMENT', `Expected ${expected} for ${name} but received ${shown}`);
}

/**
 * Report reasons are listed in their catalogue's order, each once, so the same
 * problems always give the same reasons[] whatever order they were found in.
 */
export function inCatalogueOrder<K extends string>(catalogue: Readonly<Record<K, string>>, codes: Iterable<K>): K[] {
  const present = new Set(codes);
  return (Object.keys(catalogue) as K[]).filter((c) => present.has(c));
}
