/**
 * One error class for the whole library. Every refusal carries a stable reason
 * code from the catalogue below, so tools can branch on `code` and people can
 * read `message`; the original failure, when there is one, stays in `cause`.
 */

/**
 * The sections of docs/reason-codes.md, by their anchors (GitHub's heading
 * slugs): a code's `doc` names the one whose table says when it is given.
 * test/errors.test.ts checks each code is in a table row of its section.
 */
const DOC = {
  general: 'general',
  source: 'the-source-and-its-entries',
  seal: 'the-seal-sha256sums',
  digest: 'the-artifact-digest-archivesha256',
  identity: 'identity-cijson-planjson-runjson',
  records: 'slots-and-records',
  media: 'media',
  limits: 'limits-and-refusals-hostile-input',
  verifiedRun: 'using-a-verified-run',
  compare: 'compare-refusals-and-the-bundle-folder',
  verifyBundle: 'verify-bundle',
  bundlePages: 'verify-bundle-what-a-page-does-in-a-browser-and-cijson-server_url',
  pairs: 'pair-reasons-comparisonspairsreasons',
  clips: 'clip-validity-pairsclips',
  power: 'power-runspowerreasons',
  telemetryRows: 'malformed-telemetry-rows-audit-only',
  timing: 'server-timing-runstiming',
  accounting: 'gpu-accounting-runsaccounting',
  assets: 'bundle-assets-and-metric-kernels',
  synth: 'synthetic-runs-generateruns-fidelity-generate-fidelity-demo',
  provider: 'provider-attestation-fidelity-fetch-verify---provider-compare---require-provider',
  scaleOut: 'scale-out-reproducible-time-compare---shard-and-merge',
  calibration: 'calibration-fidelity-calibrate-compare---calibration----noise-merge---calibration',
  metricSets: 'metric-sets---metrics-compare-metrics--docsmetricsmd-metric-sets',
  diff: 'diff-fidelity-diff-diffreports-docsdiffmd',
  ciReports: 'ci-reports-compare--merge---junit---summary-github_step_summary-docscimd',
  gate: 'the-ci-gate-compare--merge---fail-on-threshold-docsreportmd-exit-codes',
} as const;

/**
 * Which side of a pair a pair reason names: always the `baseline`, the
 * `candidate` or `both`; `either`: the file it concerns, named in
 * `reason_details[].side` (baseline, candidate or both); `neither`: the pair
 * as a whole (a difference between the two files, or a cancelled measure).
 * Codes that are never pair reasons have none.
 */
export type ReasonSide = 'baseline' | 'candidate' | 'both' | 'either' | 'neither';

/** A reason code's words on the report pages: the sentence a reader sees for it in each language. */
export interface ReasonWords {
  readonly en: string;
  readonly zh: string;
}

/** One reason code: what it means, where docs/reason-codes.md says when it is given, the side it names, its words on the pages. */
export interface ReasonDeclaration {
  /** One line: what the code means ({@link ReasonCodes} gives these). */
  readonly meaning: string;
  /** The anchor of the docs/reason-codes.md section whose table has the code's row. */
  readonly doc: string;
  /** For a pair reason: which side of the pair it names. */
  readonly side?: ReasonSide;
  /** For a code the report pages show: its words in English and Chinese. */
  readonly words?: ReasonWords;
  /** For a clip code (`CLIP_*`): InferenceX applies the check to every clip, also inside `compare_media`, whatever its caller asks. */
  readonly unconditional?: boolean;
  /** Declared ahead of the version that gives it: the version from which it is given (none: given now). */
  readonly since?: string;
}

/**
 * Every reason code, declared once: one entry per code, in catalogue order
 * (the order report reasons are listed in). Adding a code is adding its entry
 * here and its row in the `doc` section of docs/reason-codes.md
 * (docs/architecture.md, "Adding a metric or a check").
 */
export const REASONS = {
  // Setup
  FFMPEG_NOT_FOUND: { meaning: 'no usable ffmpeg/ffprobe binary was found', doc: DOC.general },
  FFMPEG_BROKEN: { meaning: 'an ffmpeg/ffprobe binary was found but does not run', doc: DOC.general },
  TEMP_NOT_WRITABLE: { meaning: 'the temp folder (TMPDIR) cannot hold fidelity\'s temp folders: missing, not a folder, read-only or full', doc: DOC.general },
  INVALID_ARGUMENT: { meaning: 'a parameter has the wrong type or value', doc: DOC.general },
  INTERNAL: { meaning: 'an unexpected internal failure', doc: DOC.general },
  ABORTED: { meaning: 'the operation was cancelled', doc: DOC.general, side: 'neither' },
  // Run archive (archive/, docs/run-archive.md; documented in docs/reason-codes.md)
  SOURCE_NOT_FOUND: { meaning: 'the run path does not exist', doc: DOC.source },
  RUN_INVALID: { meaning: 'the run archive failed verification (see problems)', doc: DOC.verifiedRun },
  RUN_CLOSED: { meaning: 'the verified run was already closed', doc: DOC.verifiedRun },
  ARCHIVE_UNREADABLE: { meaning: 'not a directory, zip or tar.gz, or an entry of it cannot be read', doc: DOC.source },
  ARCHIVE_EMPTY: { meaning: 'the archive holds no files', doc: DOC.source },
  ARCHIVE_LAYOUT: { meaning: 'the files are neither at the root nor under one top-level folder', doc: DOC.source },
  ARCHIVE_UNSAFE_ENTRY: { meaning: 'an entry name is absolute, climbs with "..", or is not a plain relative path', doc: DOC.source },
  ARCHIVE_LINK_ENTRY: { meaning: 'an entry is a symbolic or hard link (links are never followed)', doc: DOC.source },
  ARCHIVE_SPECIAL_ENTRY: { meaning: 'an entry is a device, FIFO, socket or of an unknown type', doc: DOC.source },
  ARCHIVE_DUPLICATE_ENTRY: { meaning: 'two entries have the same name', doc: DOC.source },
  ARCHIVE_NAME_COLLISION: { meaning: 'two names differ only in case or Unicode form, or a name is both a file and a folder', doc: DOC.source },
  ARCHIVE_UNKNOWN_FILE: { meaning: 'a file the run archive format does not define', doc: DOC.source },
  LIMIT_FILES: { meaning: 'the archive holds more files than the limit', doc: DOC.source },
  LIMIT_FILE_SIZE: { meaning: 'a file is larger than the per-file limit', doc: DOC.source },
  LIMIT_TOTAL_SIZE: { meaning: 'the files add up to more than the total limit', doc: DOC.source },
  LIMIT_METADATA_SIZE: { meaning: 'a metadata file (read into memory) is larger than its limit', doc: DOC.source },
  SEAL_MISSING: { meaning: 'SHA256SUMS is absent', doc: DOC.seal },
  SEAL_MALFORMED_LINE: { meaning: 'a SHA256SUMS line is not "<64 lowercase hex>  <canonical relative path>"', doc: DOC.seal },
  SEAL_ABSOLUTE_PATH: { meaning: 'a SHA256SUMS line names an absolute path', doc: DOC.seal },
  SEAL_PATH_TRAVERSAL: { meaning: 'a SHA256SUMS line names a path containing ".."', doc: DOC.seal },
  SEAL_DUPLICATE_LINE: { meaning: 'a path is listed twice in SHA256SUMS', doc: DOC.seal },
  SEAL_LISTS_ITSELF: { meaning: 'SHA256SUMS lists itself', doc: DOC.seal },
  SEAL_MISSING_FILE: { meaning: 'SHA256SUMS lists a file the archive does not hold', doc: DOC.seal },
  SEAL_EXTRA_FILE: { meaning: 'the archive holds a file SHA256SUMS does not list', doc: DOC.seal },
  SEAL_HASH_MISMATCH: { meaning: 'a file does not hash to its SHA256SUMS digest', doc: DOC.seal },
  DIGEST_MISSING: { meaning: 'an artifact digest was required but there is no <archive>.sha256', doc: DOC.digest },
  DIGEST_MALFORMED: { meaning: 'the <archive>.sha256 file is not "sha256:<64 hex>" or "<64 hex>"', doc: DOC.digest },
  DIGEST_MISMATCH: { meaning: 'the archive does not hash to its artifact digest', doc: DOC.digest },
  DIGEST_NAME_MISMATCH: { meaning: 'the name in <archive>.sha256 is not the archive file name (warning)', doc: DOC.digest },
  CI_MISSING: { meaning: 'ci.json is absent', doc: DOC.identity },
  CI_INVALID_JSON: { meaning: 'ci.json is not valid UTF-8 JSON', doc: DOC.identity },
  CI_SCHEMA: { meaning: 'ci.json does not match its schema', doc: DOC.identity },
  CI_SCHEMA_VERSION: { meaning: 'ci.json has an unsupported schema_version', doc: DOC.identity },
  CI_PROVIDER: { meaning: 'ci.json provider is not github, gitlab or other', doc: DOC.identity },
  CI_RUN_ID: { meaning: 'ci.json run_id is not a positive integer', doc: DOC.identity },
  CI_RUN_ATTEMPT: { meaning: 'ci.json run_attempt is not an integer of at least 1', doc: DOC.identity },
  CI_HEAD_SHA: { meaning: 'ci.json head_sha is not 40 hex digits', doc: DOC.identity },
  CI_REPOSITORY: { meaning: 'ci.json repository is not owner/name (GitLab: project_path is not group[/subgroup...]/project)', doc: DOC.identity },
  CI_ARTIFACT_NAME_SUFFIX: { meaning: 'ci.json artifact.name does not end with -<run_id>-<run_attempt>', doc: DOC.identity },
  CI_GPU_COUNT: { meaning: 'ci.json gpus_participating exceeds gpus_allocated', doc: DOC.identity },
  PLAN_MISSING: { meaning: 'plan.json is absent', doc: DOC.identity },
  PLAN_INVALID_JSON: { meaning: 'plan.json is not valid UTF-8 JSON', doc: DOC.identity },
  PLAN_SCHEMA: { meaning: 'plan.json does not match its schema', doc: DOC.identity },
  PLAN_DUPLICATE_CASE: { meaning: 'plan.json names the same case_id twice', doc: DOC.identity },
  RUN_MISSING: { meaning: 'run.json is absent', doc: DOC.identity },
  RUN_INVALID_JSON: { meaning: 'run.json is not valid UTF-8 JSON', doc: DOC.identity },
  RUN_SCHEMA: { meaning: 'run.json does not match its schema', doc: DOC.identity },
  RUN_ID_MISMATCH: { meaning: 'run.json run_id differs from ci.json', doc: DOC.identity },
  RUN_ATTEMPT_MISMATCH: { meaning: 'run.json run_attempt differs from ci.json', doc: DOC.identity },
  PLAN_SHA_MISMATCH: { meaning: 'run.json plan_sha256 is not the SHA-256 of plan.json', doc: DOC.identity },
  RUN_GPU_COUNT_MISMATCH: { meaning: 'run.json expected_gpu_count differs from ci.json gpus_participating', doc: DOC.identity },
  RUN_WINDOW_INVALID: { meaning: 'run.json measurement_window ends before it starts', doc: DOC.identity },
  SLOT_MISSING: { meaning: 'a planned slot has no record', doc: DOC.records },
  SLOT_DUPLICATE: { meaning: 'a slot has more than one record', doc: DOC.records },
  SLOT_ORDER: { meaning: 'records are not in the planned order (warmups, then repetition x case)', doc: DOC.records },
  SLOT_UNEXPECTED: { meaning: 'a record names a slot the plan does not have', doc: DOC.records },
  SLOT_ID_INVALID: { meaning: 'a slot_id is neither warmup-NNN nor measurement-rNNN-cNNN', doc: DOC.records },
  WARMUP_NAME: { meaning: 'a warmup record is not named warmup-NNN', doc: DOC.records },
  WARMUP_COUNT: { meaning: 'the number of warmup records differs from plan.warmup_runs', doc: DOC.records },
  RECORD_KIND_MISMATCH: { meaning: 'a record kind disagrees with its slot_id', doc: DOC.records },
  RECORD_UNKNOWN_CASE: { meaning: 'a record names a case_id the plan does not have', doc: DOC.records },
  RECORD_CASE_MISMATCH: { meaning: 'a measurement record case_id is not the plan case of its slot', doc: DOC.records },
  RECORD_PROMPT_MISMATCH: { meaning: 'a record prompt differs from its plan case', doc: DOC.records },
  RECORD_SEED_MISMATCH: { meaning: 'a record seed differs from its plan case', doc: DOC.records },
  RECORD_REPETITION_MISMATCH: { meaning: 'a measurement record repetition disagrees with its slot_id', doc: DOC.records },
  RECORD_LATENCY_INVALID: { meaning: 'a record latency_s is negative or not a number', doc: DOC.records },
  RECORD_OK_WITHOUT_MEDIA: { meaning: 'an ok record has no media', doc: DOC.records },
  RECORD_OK_WITH_ERROR: { meaning: 'an ok record carries an error string (warning)', doc: DOC.records },
  RECORD_FAILED_WITHOUT_ERROR: { meaning: 'a failed record has no error string', doc: DOC.records },
  RECORD_WINDOW_INVALID: { meaning: 'a record window ends before it starts', doc: DOC.records },
  RECORD_SERVER_TIMING_ORDER: { meaning: 'a record server_timing events are not in pipeline order (warning)', doc: DOC.records },
  MEDIA_PATH_UNSAFE: { meaning: 'a media path is absolute, climbs with "..", or is not a plain relative path', doc: DOC.media },
  MEDIA_PATH_MISMATCH: { meaning: 'a media path is not media/<slot_id>.mp4', doc: DOC.media },
  MEDIA_MISSING: { meaning: 'a record media file is not in the archive', doc: DOC.media, side: 'either', words: { en: 'A record is ok but has no sealed media', zh: '记录状态为 ok，但没有封存的媒体文件' } },
  MEDIA_NOT_SEALED: { meaning: 'a record media file is not listed in SHA256SUMS', doc: DOC.media },
  MEDIA_ON_FAILED_RECORD: { meaning: 'a failed record names a media file', doc: DOC.media },
  MEDIA_UNREFERENCED: { meaning: 'a file under media/ belongs to no ok record', doc: DOC.media },
  MEDIA_CHANGED: { meaning: 'a media file changed after verification', doc: DOC.media },
  // Run archive: bounded work on hostile input (limits, strict JSON, sane number ranges)
  LIMIT_ENTRIES: { meaning: 'the archive holds more entries of any kind (files, folders, links) than the limit', doc: DOC.limits },
  LIMIT_DECOMPRESSED_SIZE: { meaning: 'the tar.gz inflates to more bytes than the limit', doc: DOC.limits },
  LIMIT_COMPRESSION_RATIO: { meaning: 'the archive inflates more bytes per compressed byte than the limit (a decompression bomb)', doc: DOC.limits },
  JSON_BOM: { meaning: 'a JSON file of the archive starts with a byte order mark', doc: DOC.limits },
  JSON_DUPLICATE_KEY: { meaning: 'a JSON object of the archive names the same key twice', doc: DOC.limits },
  JSON_CONTROL_CHARACTER: { meaning: 'a JSON file of the archive holds a raw DEL control character (0x7f)', doc: DOC.limits },
  JSON_TOO_DEEP: { meaning: 'a JSON file of the archive nests objects and arrays deeper than 64', doc: DOC.limits },
  VALUE_OUT_OF_RANGE: { meaning: 'a number of the archive is outside its sane range (GPU counts, media specs, windows, latencies, timings)', doc: DOC.limits },
  // Command line (packages/cli)
  USAGE: { meaning: 'the command line is wrong (unknown command or option, missing argument, an option that takes one value given twice)', doc: DOC.general },
  // compare() refusals and the bundle folder (docs/report.md)
  DUPLICATE_RUN: { meaning: 'the same run (run_id-run_attempt) was given twice', doc: DOC.compare },
  PLAN_MISMATCH: { meaning: 'the runs did not execute the same workload (the differing fields are named)', doc: DOC.compare, words: { en: 'The workload plan differs from the baseline', zh: '工作负载计划与基线不同' } },
  // Calibration (calibrate/, docs/calibration.md)
  CALIBRATION_NO_PAIRS: { meaning: 'no same-hardware pair can be formed from the given runs (or none was measured)', doc: DOC.calibration },
  CALIBRATION_INVALID: { meaning: 'the calibration file is unreadable, not JSON, or fails its schema', doc: DOC.calibration },
  CALIBRATION_DEFINITIONS_OUTDATED: { meaning: 'the calibration was measured with older metric definitions (its noise floor is of other numbers): calibrate again', doc: DOC.calibration },
  CALIBRATION_MISMATCH_DEFINITIONS: { meaning: 'the calibration was measured with a newer metric definitions version than this tool knows', doc: DOC.calibration },
  CALIBRATION_MISMATCH_DECODER: { meaning: 'the calibration was decoded by another ffmpeg binary (SHA-256)', doc: DOC.calibration },
  CALIBRATION_MISMATCH_PLAN: { meaning: 'the calibration is of another workload (plan_sha256)', doc: DOC.calibration },
  CALIBRATION_MISMATCH_HARDWARE: { meaning: "the baseline's hardware class is not among the calibration's", doc: DOC.calibration },
  POLICY_INVALID: { meaning: 'the policy file is unreadable, not JSON, or fails its schema', doc: DOC.compare },
  OUT_NOT_EMPTY: { meaning: '--out is a non-empty folder that is not a fidelity bundle (use --force)', doc: DOC.compare },
  OUT_NOT_DIRECTORY: { meaning: '--out is a file or a symbolic link', doc: DOC.compare },
  OUT_INSIDE_INPUT: { meaning: '--out lies inside an input run (runs are read-only)', doc: DOC.compare },
  OUT_CONTAINS_INPUT: { meaning: '--out contains an input run (replacing it would delete the run)', doc: DOC.compare },
  // --out safety: locking and writability (output/out-guard.ts)
  OUT_LOCKED: { meaning: 'another comparison is writing the same --out right now', doc: DOC.compare },
  OUT_NOT_WRITABLE: { meaning: 'the folder that would hold --out cannot be created or written (read-only, a full disk, a file past the size limit)', doc: DOC.compare },
  OUT_PATH_INVALID: { meaning: 'an output path ends in "/" where a file is meant, or a name or the whole path is longer than the file system holds once the temp names beside it are counted', doc: DOC.compare },
  OUT_EXISTS: { meaning: 'an output file (calibrate --out, --policy-out) exists and is not this command\'s earlier output, or is a folder (use --force)', doc: DOC.compare },
  // verify-bundle
  BUNDLE_NOT_FOUND: { meaning: 'the bundle path is not a folder', doc: DOC.verifyBundle },
  BUNDLE_SEAL_MISSING: { meaning: 'the bundle has no SHA256SUMS', doc: DOC.verifyBundle },
  BUNDLE_SEAL_MALFORMED: { meaning: 'a bundle SHA256SUMS line is malformed, unsafe, duplicated or self-listing', doc: DOC.verifyBundle },
  BUNDLE_FILE_MISSING: { meaning: 'a file listed in the bundle SHA256SUMS is missing', doc: DOC.verifyBundle },
  BUNDLE_FILE_EXTRA: { meaning: 'a bundle file is not listed in SHA256SUMS, or is a link or special file', doc: DOC.verifyBundle },
  BUNDLE_FILE_KIND: { meaning: 'a sealed file is not one compare writes (place, name or report key), or its bytes are not the kind its name says', doc: DOC.verifyBundle },
  BUNDLE_FILE_CHANGED: { meaning: 'a bundle file does not hash to its SHA256SUMS line', doc: DOC.verifyBundle },
  BUNDLE_REPORT_MISSING: { meaning: 'report.json is missing or not sealed', doc: DOC.verifyBundle },
  BUNDLE_REPORT_INVALID: { meaning: 'report.json is not JSON or does not match schema_version 1', doc: DOC.verifyBundle },
  BUNDLE_INDEX_MISSING: { meaning: 'index.html is missing or not sealed', doc: DOC.verifyBundle },
  BUNDLE_LINK_BROKEN: { meaning: 'a page link or report.json path does not resolve to a sealed bundle file', doc: DOC.verifyBundle },
  BUNDLE_LINK_EXTERNAL: { meaning: 'a link leaves the bundle for anything but the runs\' own server over https', doc: DOC.verifyBundle },
  // verify-bundle: what a page does in a browser (scan.ts, csp.ts), and ci.json server_url
  BUNDLE_PAGE_CSP: { meaning: 'a page does not begin its <head> with a Content-Security-Policy meta as strict as required', doc: DOC.bundlePages },
  BUNDLE_PAGE_ENCODING: { meaning: 'a page is not UTF-8, or does not declare <meta charset="utf-8"> right after the policy in its first 1024 bytes', doc: DOC.bundlePages },
  BUNDLE_PAGE_SCRIPT: { meaning: 'a page has a script the policy does not list by hash (src, other body, other type, event handler)', doc: DOC.bundlePages },
  BUNDLE_PAGE_REFRESH: { meaning: 'a page has <meta http-equiv="refresh">', doc: DOC.bundlePages },
  BUNDLE_PAGE_SRCDOC: { meaning: 'a page has a srcdoc attribute', doc: DOC.bundlePages },
  BUNDLE_PAGE_ELEMENT: { meaning: 'a page has a <base> or <noscript> element', doc: DOC.bundlePages },
  BUNDLE_PAGE_TYPE: { meaning: 'a bundle file of a type a browser opens as a scriptable document other than .html (.svg, .xhtml, .xml …)', doc: DOC.bundlePages },
  CI_SERVER_URL: { meaning: 'ci.json server_url is not https://host[:port][/path] without credentials, query or fragment', doc: DOC.bundlePages },
  // Pair reasons (comparisons[].pairs[].reasons): why a planned pair is invalid
  FAILED_BASELINE: { meaning: 'the baseline request failed', doc: DOC.pairs, side: 'baseline', words: { en: 'The baseline request failed', zh: '基线请求失败' } },
  FAILED_CANDIDATE: { meaning: 'the candidate request failed', doc: DOC.pairs, side: 'candidate', words: { en: 'The candidate request failed', zh: '候选请求失败' } },
  FAILED_BOTH: { meaning: 'the request failed on both sides', doc: DOC.pairs, side: 'both', words: { en: 'Both requests failed', zh: '两侧请求均失败' } },
  INCOMPATIBLE_SIZE: { meaning: 'the two video streams differ in width or height', doc: DOC.pairs, side: 'neither', words: { en: 'Frame size differs', zh: '画面尺寸不同' } },
  INCOMPATIBLE_FRAME_COUNT: { meaning: 'the two video streams differ in frame count', doc: DOC.pairs, side: 'neither', words: { en: 'Frame count differs', zh: '帧数不同' } },
  INCOMPATIBLE_TIMESTAMPS: { meaning: 'the frame timestamps differ by more than one time-base tick', doc: DOC.pairs, side: 'neither', words: { en: 'Frame timestamps differ', zh: '帧时间戳不同' } },
  INCOMPATIBLE_AUDIO_PRESENCE: { meaning: 'one side has audio and the other does not', doc: DOC.pairs, side: 'neither', words: { en: 'Only one side has an audio stream', zh: '只有一侧有音频流' } },
  INCOMPATIBLE_SAMPLE_RATE: { meaning: 'the audio streams differ in sample rate', doc: DOC.pairs, side: 'neither', words: { en: 'Audio sample rate differs', zh: '音频采样率不同' } },
  INCOMPATIBLE_CHANNELS: { meaning: 'the audio streams differ in channel count', doc: DOC.pairs, side: 'neither', words: { en: 'Audio channel count differs', zh: '音频声道数不同' } },
  INCOMPATIBLE_SAMPLE_COUNT: { meaning: 'the audio streams differ in sample count', doc: DOC.pairs, side: 'neither', words: { en: 'Audio sample count differs', zh: '音频采样数不同' } },
  INCOMPATIBLE_PIXEL_FORMAT: { meaning: 'the two video streams differ in chroma layout', doc: DOC.pairs, side: 'neither', words: { en: 'Pixel format differs', zh: '像素格式不同' } },
  UNSUPPORTED_PIXEL_FORMAT: { meaning: 'a video stream is not 8-bit planar YUV', doc: DOC.pairs, side: 'either' },
  NO_VIDEO_STREAM: { meaning: 'an MP4 has no video stream', doc: DOC.pairs, side: 'either', words: { en: 'A side has no video stream', zh: '有一侧没有视频流' } },
  UNDECODABLE: { meaning: 'ffmpeg could not decode a side', doc: DOC.pairs, side: 'either' },
  DECODE_TIMEOUT: { meaning: 'a decoder ran past its time limit and was stopped', doc: DOC.pairs, side: 'either' },
  // Pair reasons: stream layout, display and timing (media/compat.ts, docs/media.md)
  EXTRA_VIDEO_STREAM: { meaning: 'a side has more than one video stream (cover art included); only one is measured', doc: DOC.pairs, side: 'either' },
  EXTRA_AUDIO_STREAM: { meaning: 'a side has more than one audio stream; only one is measured', doc: DOC.pairs, side: 'either' },
  EXTRA_STREAM: { meaning: 'a side has a stream that is neither video nor audio (subtitles, data, attachment)', doc: DOC.pairs, side: 'either' },
  INCOMPATIBLE_DISPLAY_MATRIX: { meaning: 'the video display matrices (rotation, flip) differ', doc: DOC.pairs, side: 'neither', words: { en: 'The video display matrix differs', zh: '视频显示矩阵不同' } },
  INCOMPATIBLE_ASPECT_RATIO: { meaning: 'the video sample aspect ratios differ (a player stretches one picture differently)', doc: DOC.pairs, side: 'neither', words: { en: 'The video sample aspect ratio differs', zh: '视频采样宽高比不同' } },
  INCOMPATIBLE_VIDEO_EDIT_LIST: { meaning: 'the video edit lists show different delays, durations or rates', doc: DOC.pairs, side: 'neither', words: { en: 'The video edit lists differ', zh: '视频编辑列表不同' } },
  INCOMPATIBLE_AUDIO_EDIT_LIST: { meaning: 'the audio edit lists show different delays, durations or rates', doc: DOC.pairs, side: 'neither', words: { en: 'The audio edit lists differ', zh: '音频编辑列表不同' } },
  INCOMPATIBLE_AUDIO_START: { meaning: 'the audio starts at a different time relative to the video (more than one sample apart)', doc: DOC.pairs, side: 'neither' },
  // Pair reason, and a warning of fidelity verify: media against the plan (media/plan-conformance.ts, docs/media.md)
  MEDIA_PLAN_MISMATCH: { meaning: "a slot's media differ from the plan's video / audio spec (width, height, fps, frames, sample rate, channels, the audio's length)", doc: DOC.pairs, side: 'either', words: { en: "The media differ from the plan's video / audio spec", zh: '媒体与计划的视频／音频规格不符' } },
  // Clip validity, each clip on its own (docs/metrics.md, "Clip validity"), given from version 1.2. Their order here
  // is the order a clip's reasons are listed in everywhere (schemas/clip.ts ClipCode takes it from here), root cause
  // first: InferenceX's unconditional checks (a broken stream explains everything after it), then what the picture is
  // before what it does (a black or white picture and held frames are why it does not move), then the sound, then the
  // clip's length and the audio against the video.
  CLIP_TIMESTAMPS: { meaning: 'a clip has a video or audio frame without a timestamp, or one not after the one before', doc: DOC.clips, side: 'either', unconditional: true, words: { en: 'A clip has missing or out-of-order timestamps', zh: '片段的时间戳缺失或未递增' } },
  CLIP_CORRUPT_FRAMES: { meaning: 'the decoder flagged a frame of a clip corrupt', doc: DOC.clips, side: 'either', unconditional: true, words: { en: 'The decoder flagged a frame of a clip corrupt', zh: '解码器将片段的某帧标记为损坏' } },
  CLIP_GEOMETRY_CHANGED: { meaning: 'a frame of a clip has another size than its first', doc: DOC.clips, side: 'either', unconditional: true, words: { en: 'A clip changes frame size', zh: '片段的帧尺寸发生变化' } },
  CLIP_AUDIO_EMPTY: { meaning: "a clip's audio stream decodes to no sample", doc: DOC.clips, side: 'either', unconditional: true, words: { en: "A clip's audio stream has no sample", zh: '片段的音频流没有任何采样' } },
  CLIP_AUDIO_GAP: { meaning: "a clip's audio timestamps jump (a gap or an overlap) by more than a tick or a sample", doc: DOC.clips, side: 'either', unconditional: true, words: { en: "A clip's audio jumps (a gap or an overlap in its timestamps)", zh: '片段的音频时间戳跳变（间隙或重叠）' } },
  CLIP_CADENCE: { meaning: "a clip's shortest or longest frame interval is off the plan's 1/fps", doc: DOC.clips, side: 'either', words: { en: "A clip's frame intervals are off the plan's rate", zh: '片段的帧间隔偏离计划帧率' } },
  CLIP_BLANK: { meaning: 'a clip is black or white in every frame, or in more frames than the plan allows', doc: DOC.clips, side: 'either', words: { en: 'A clip is black or white in every frame (or in more frames than the plan allows)', zh: '片段每一帧都是全黑或全白（或超过计划允许的比例）' } },
  CLIP_FROZEN: { meaning: "more of a clip's frame steps are frozen than the plan allows", doc: DOC.clips, side: 'either', words: { en: 'More of a clip is frozen than the plan allows', zh: '片段静止帧比例超过计划允许值' } },
  CLIP_NO_MOTION: { meaning: "a clip's picture does not move (mean adjacent-frame MAE at most 1/1024)", doc: DOC.clips, side: 'either', words: { en: "A clip's picture does not move", zh: '片段画面没有运动' } },
  CLIP_SILENT: { meaning: "a clip's audio is silent on every channel (RMS at most 1e-4)", doc: DOC.clips, side: 'either', words: { en: 'A clip is silent on every channel', zh: '片段所有声道均为静音' } },
  CLIP_DURATION: { meaning: "a clip's video lasts longer or shorter than the plan says", doc: DOC.clips, side: 'either', words: { en: 'A clip lasts longer or shorter than the plan says', zh: '片段时长与计划不符' } },
  CLIP_AV_SKEW: { meaning: "a clip's audio starts or ends further from its video than the plan allows", doc: DOC.clips, side: 'either', words: { en: "A clip's audio starts or ends too far from its video", zh: '片段音频的开始或结束与视频相差过大' } },
  // Media extraction for the bundle's stills and WAV, and the metric kernels (programming errors if they escape)
  MEDIA_EXTRACT_FAILED: { meaning: 'ffmpeg could not extract a frame or the audio for the bundle assets', doc: DOC.assets },
  FRAME_NOT_FOUND: { meaning: 'the requested frame index is past the end of the stream', doc: DOC.assets },
  NO_FRAMES: { meaning: 'a metric summary was asked of a stream without frames', doc: DOC.assets },
  FRAME_TOO_SMALL: { meaning: 'a plane is smaller than the metric window', doc: DOC.pairs, side: 'either' },
  // The synthetic run generator (fidelity generate, fidelity demo)
  OUTPUT_EXISTS: { meaning: 'a run folder to generate already exists (use --force)', doc: DOC.synth },
  OUTPUT_UNWRITABLE: { meaning: 'the generator cannot create its output folder', doc: DOC.synth },
  SYNTH_ENCODE_FAILED: { meaning: 'ffmpeg failed while encoding a synthetic clip', doc: DOC.synth },
  // Power (runs[].power.reasons; power/reasons.ts says when each applies)
  WINDOW_MISSING: { meaning: 'run.json has no measurement_window (power: nothing to integrate; accounting: no GPU-seconds)', doc: DOC.power },
  WINDOW_INVALID: { meaning: 'the measurement window is not finite or does not end after it starts', doc: DOC.power },
  TELEMETRY_MISSING: { meaning: 'the run has telemetry but no telemetry/gpu_metrics.csv', doc: DOC.power },
  TELEMETRY_EMPTY: { meaning: 'gpu_metrics.csv has no data rows', doc: DOC.power },
  COLUMN_MISSING_TIMESTAMP: { meaning: 'the telemetry CSV has no timestamp column', doc: DOC.power },
  COLUMN_MISSING_INDEX: { meaning: 'the telemetry CSV has no GPU identity column', doc: DOC.power },
  COLUMN_MISSING_POWER: { meaning: 'the telemetry CSV has no power draw column', doc: DOC.power },
  MALFORMED_ROW_IN_WINDOW: { meaning: 'a telemetry row inside the window cannot be parsed', doc: DOC.power },
  NO_SAMPLES_IN_WINDOW: { meaning: 'no power reading lies inside the window', doc: DOC.power },
  GPU_COUNT_MISMATCH: { meaning: 'the telemetry covers a different number of GPUs than run.json expects', doc: DOC.power },
  WINDOW_NOT_BRACKETED: { meaning: 'a GPU has no reading at or before the window start, or none at or after its end', doc: DOC.power },
  GAP_EXCEEDED: { meaning: 'two consecutive readings of a GPU are further apart than the maximum gap', doc: DOC.power },
  // Server timing (runs[].timing)
  TIMING_ABSENT: { meaning: 'a record has no server_timing', doc: DOC.timing },
  TIMING_NOT_MONOTONIC: { meaning: 'a record\'s server_timing stamps decrease along the pipeline', doc: DOC.timing },
  TIMING_CLOCK_MISMATCH: { meaning: 'the run\'s records use more than one clock id', doc: DOC.timing },
  // GPU accounting (runs[].accounting)
  NO_VALID_CLIPS: { meaning: 'the run has no ok measurement record, so nothing is per valid clip', doc: DOC.accounting },
  POWER_UNAVAILABLE: { meaning: 'the run has no valid power figure', doc: DOC.accounting },
  ENERGY_NOT_MEASURED_ON_BASIS: { meaning: 'the telemetry measured a different GPU count than this basis; energy is never scaled', doc: DOC.accounting },
  EXPECTED_GPU_COUNT_DIFFERS: { meaning: 'run.json expected_gpu_count differs from ci.json gpus_participating', doc: DOC.accounting },
  // Provider attestation: fidelity fetch, verify --provider, compare --require-provider (docs/provenance.md)
  FETCH_RUN_NOT_FOUND: { meaning: 'the CI provider has no such run (or the token cannot see it)', doc: DOC.provider },
  FETCH_ATTEMPT_NOT_FOUND: { meaning: 'the run has no such attempt', doc: DOC.provider },
  FETCH_RUN_IN_PROGRESS: { meaning: 'the run attempt has not completed, so its artifact may still change', doc: DOC.provider },
  FETCH_ARTIFACT_MISSING: { meaning: 'the run has no artifact of that name (or none named <prefix>-<run_id>-<attempt>)', doc: DOC.provider },
  FETCH_ARTIFACT_AMBIGUOUS: { meaning: 'more than one artifact fits; name one with --artifact', doc: DOC.provider },
  FETCH_ATTEMPT_MISMATCH: { meaning: 'the artifact belongs to another attempt than the one asked for', doc: DOC.provider },
  FETCH_ARTIFACT_EXPIRED: { meaning: 'the artifact expired: the provider no longer holds its bytes', doc: DOC.provider },
  FETCH_DIGEST_MISSING: { meaning: 'the provider reports no sha256 digest for the artifact', doc: DOC.provider },
  FETCH_DIGEST_MISMATCH: { meaning: 'the downloaded bytes do not hash to the digest the provider reports', doc: DOC.provider },
  FETCH_PROVIDER_INCONSISTENT: { meaning: 'the provider\'s answers contradict each other (run, attempt, artifact)', doc: DOC.provider },
  FETCH_RATE_LIMITED: { meaning: 'the provider\'s API rate limit was exceeded and does not reset soon enough', doc: DOC.provider },
  FETCH_ACCESS_DENIED: { meaning: 'the provider refused the token (or its absence)', doc: DOC.provider },
  FETCH_PROVIDER_ERROR: { meaning: 'the provider\'s API or storage failed (HTTP error or network)', doc: DOC.provider },
  FETCH_OUT_EXISTS: { meaning: 'a file fetch would write already exists (use --force)', doc: DOC.provider },
  FETCH_TIMEOUT: { meaning: 'the provider did not answer in time (no answer within the connect limit, a stalled answer, or past the total limit)', doc: DOC.provider },
  PROVENANCE_MISSING: { meaning: 'provider attestation was required but there is no <archive>.provenance.json (or the run is not a zip)', doc: DOC.provider },
  PROVENANCE_MALFORMED: { meaning: 'the provenance file is not JSON or does not match its schema', doc: DOC.provider },
  PROVENANCE_UNSUPPORTED: { meaning: 'provider attestation was required for a run whose CI has none here: only GitHub Actions runs can be fetched and attested', doc: DOC.provider },
  PROVENANCE_RUN_MISMATCH: { meaning: 'ci.json run_id or run_attempt differs from the provider\'s', doc: DOC.provider },
  PROVENANCE_REPOSITORY_MISMATCH: { meaning: 'ci.json repository or server_url differs from the provider\'s', doc: DOC.provider },
  PROVENANCE_HEAD_SHA_MISMATCH: { meaning: 'ci.json head_sha differs from the provider\'s', doc: DOC.provider },
  PROVENANCE_ARTIFACT_MISMATCH: { meaning: 'ci.json artifact name or id differs from the provider\'s', doc: DOC.provider },
  PROVENANCE_DIGEST_MISMATCH: { meaning: 'the zip does not hash to the digest the provider reported for it', doc: DOC.provider },
  // Scale-out: reproducible time, compare --shard and merge (docs/scale-out.md)
  SOURCE_DATE_EPOCH_INVALID: { meaning: 'SOURCE_DATE_EPOCH is set but is not a whole number of seconds', doc: DOC.scaleOut },
  SHARD_ENV_MISSING: { meaning: '--shard auto found neither a Slurm array task nor a Kubernetes completion index', doc: DOC.scaleOut },
  SHARD_ENV_INCONSISTENT: { meaning: '--shard auto found scheduler variables that are malformed or contradict each other', doc: DOC.scaleOut },
  PARTIAL_UNREADABLE: { meaning: 'a partial folder is missing, holds no partial.json, or partial.json fails its schema', doc: DOC.scaleOut },
  PARTIAL_SEAL: { meaning: 'a partial\'s SHA256SUMS is missing or malformed, or a file is missing, extra or changed', doc: DOC.scaleOut },
  PARTIAL_TOOL_MISMATCH: { meaning: 'a partial was written by another fidelity version than the merge', doc: DOC.scaleOut },
  PARTIAL_DECODER_MISMATCH: { meaning: 'the partials were measured with different ffmpeg/ffprobe binaries', doc: DOC.scaleOut },
  PARTIAL_FOREIGN_RUNS: { meaning: 'a partial was measured on other runs (ids, attempts, seals or order) than the merge was given', doc: DOC.scaleOut },
  PARTIAL_POLICY_MISMATCH: { meaning: 'the partials were judged with different policies, or not with the one given to merge', doc: DOC.scaleOut },
  PARTIAL_SHARD_COUNT_MISMATCH: { meaning: 'the partials split the pairs into different shard counts N', doc: DOC.scaleOut },
  PARTIAL_PAIRS_MISMATCH: { meaning: 'a partial does not hold exactly the pairs of its shard index, as these runs number them', doc: DOC.scaleOut },
  PARTIAL_PAIR_DUPLICATE: { meaning: 'two partials hold the same pair', doc: DOC.scaleOut },
  PARTIAL_MEASUREMENT_INVALID: { meaning: 'a partial\'s measurement contradicts itself (a figure out of range, a per-frame series of the wrong length, an aggregate its series does not give, a clip analysis missing or at odds with itself, the build, its pair or the same file in another pair) or its frames.csv', doc: DOC.scaleOut },
  PARTIAL_MEASUREMENT_MISMATCH: { meaning: 'a partial\'s measurement differs from what merge found itself: its probe of the media, or its own measurement of the pair (--remeasure)', doc: DOC.scaleOut },
  SHARD_DUPLICATE: { meaning: 'the same shard index is given by more than one partial', doc: DOC.scaleOut },
  SHARD_MISSING: { meaning: 'a shard index has no partial (the message gives the Slurm --array= of those to rerun)', doc: DOC.scaleOut },
  // Metric sets: --metrics / compare({ metrics }) (metrics/registry.ts, docs/metrics.md)
  POLICY_METRIC_NOT_COMPUTED: { meaning: 'an enabled policy check reads a metric the chosen metric set does not compute', doc: DOC.metricSets },
  PARTIAL_METRICS_MISMATCH: { meaning: 'the partials were measured with different metric sets', doc: DOC.metricSets },
  // diff: two reports' measured values (diff/, docs/diff.md)
  DIFF_INPUT_NOT_FOUND: { meaning: 'a side of the diff is neither a bundle folder nor a report.json file', doc: DOC.diff },
  DIFF_REPORT_TOO_LARGE: { meaning: 'a report.json is larger than the limit and was not read', doc: DOC.diff },
  DIFF_REPORT_INVALID: { meaning: 'a report.json is not JSON, has a byte order mark, a duplicate key or deep nesting, fails the report schema, or names a pair, run or comparison twice', doc: DOC.diff },
  // JUnit XML and the job summary of compare / merge (ci/, docs/ci.md)
  CI_OUTPUT_INVALID: { meaning: '--junit or --summary names a folder, a place inside --out or an input run, or a file that cannot be written', doc: DOC.ciReports },
  // The CI gate of compare / merge --fail-on-threshold (the `gate` of the --json document; docs/report.md, "Exit codes")
  GATE_CHECK_FAILED: { meaning: 'the bundle was written and a pair failed a check (exit 4 with --fail-on-threshold)', doc: DOC.gate },
  GATE_INVALID_PAIRS: { meaning: 'the bundle was written, no pair failed a check, but a planned pair is invalid (exit 5 with --fail-on-threshold, unless --allow-invalid)', doc: DOC.gate },
  // Failed checks: a failed pair's reasons, one per failed check in the policy's order; each check's
  // declaration names its code (policy/checks.ts `failCode`)
  CHECK_FAILED_MIN_SSIM: { meaning: 'the minimum per-frame SSIM check failed: the SSIM figure it reads is under its threshold', doc: DOC.pairs, side: 'neither' },
  CHECK_FAILED_VIDEO_PSNR_DB: { meaning: 'the video PSNR check failed: the PSNR figure it reads is under its threshold', doc: DOC.pairs, side: 'neither' },
  CHECK_FAILED_SPECTRAL_COSINE: { meaning: 'the audio spectral cosine check failed: the spectra differ more than its threshold allows', doc: DOC.pairs, side: 'neither' },
  CHECK_FAILED_RMS_RATIO_DEVIATION: { meaning: 'the audio RMS ratio check failed: the loudness ratio is further from 1 than its threshold allows', doc: DOC.pairs, side: 'neither' },
} as const satisfies Record<string, ReasonDeclaration>;

/** A code of the catalogue. */
export type KnownReasonCode = keyof typeof REASONS;

/** A clip reason code: a catalogue code whose row is in docs/reason-codes.md's "Clip validity" section. */
export type ClipReasonCode = { [K in KnownReasonCode]: (typeof REASONS)[K]['doc'] extends typeof DOC.clips ? K : never }[KnownReasonCode];

/** The clip reason codes in catalogue order: the order a clip's reasons are listed in everywhere (schemas/clip.ts). */
export const CLIP_REASON_CODES: readonly ClipReasonCode[] = Object.freeze((Object.keys(REASONS) as KnownReasonCode[]).filter((c): c is ClipReasonCode => REASONS[c].doc === DOC.clips));

/** Every reason code the library gives, as code -> meaning, in catalogue order (docs/reason-codes.md says when each is given). */
export const ReasonCodes = Object.fromEntries(Object.entries(REASONS).map(([code, d]) => [code, d.meaning])) as { readonly [K in KnownReasonCode]: string };

/** The declaration of a code; undefined for a code this tool does not know (a report from elsewhere). */
export function reasonDeclaration(code: string): ReasonDeclaration | undefined {
  return Object.hasOwn(REASONS, code) ? (REASONS as Record<string, ReasonDeclaration>)[code] : undefined;
}

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
