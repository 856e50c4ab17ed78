// The public API: an explicit list, nothing else.
export { FidelityError, isFidelityError, ReasonCodes } from './errors.js';
export type { Problem, ProblemLocation } from './errors.js';
export { TOOL_VERSION } from './version.js';
export { resolveFfmpeg, resolveBinary, binaryCandidates, toolchainCandidates } from './media/ffmpeg.js';
export type { BinaryIdentity, BinaryCandidate, BinaryKind, BinarySource, FfmpegToolchain, ResolveOptions, ToolchainCandidate } from './media/ffmpeg.js';
export { ffmpegAdvice, parseFfmpegVersionLine, FFMPEG_MAX_AGE_YEARS } from './media/ffmpeg-advice.js';
export type { FfmpegAdvice } from './media/ffmpeg-advice.js';
export { defaultThreadCount } from './pool/threads.js';
// Measuring one pair, in the calling thread or in the worker pool.
export { measurePair } from './pool/measure-pair.js';
export { DEFAULT_DECODE_TIMEOUT_MS } from './pool/pair-options.js';
export { visibleId } from './visible.js';
export { byCount, counted } from './words.js';
export { createMeasurePool } from './pool/pool.js';
export { MeasureFailureCodes } from './pool/api.js';
// The metric kernels (docs/metrics.md): pure functions over typed arrays and the per-pair accumulators.
export { createFfmpegSeries, createOrderedSeries, createVideoAccumulator, measureFrameValues } from './metrics/video.js';
export type { FfmpegSeries, FrameValues, OrderedSeries, PlanarFrame, VideoAccumulator, VideoMetricOptions } from './metrics/video.js';
export { yuvToRgb24, rgbConversionFor } from './metrics/rgb24.js';
export type { RgbConversion } from './metrics/rgb24.js';
export { METRIC_NAMES, METRIC_SETS, MetricSelection, describeMetrics, resolveMetrics } from './metrics/names.js';
export type { MetricName, MetricSetName, MetricsSpec } from './metrics/names.js';
export type { RoleValues } from './metrics/registry.js';
export { createAudioAccumulator } from './metrics/audio.js';
export type { AudioAccumulator } from './metrics/audio.js';
export type { AudioChannelSums } from './metrics/audio-channel.js';
export type { SpectralSums } from './metrics/spectral.js';
export { METRIC_DEFINITIONS_VERSION } from './metrics/names.js';
export { withClipValidity, inferencexRefused, inferencexTemplate } from './metrics/inferencex.js';
export type { ClipValidity } from './metrics/inferencex.js';
export type { DecodedFrame, FrameGeometry } from './metrics/frame.js';
export { ssimGaussian } from './metrics/ssim-gaussian.js';
export { ssimFfmpegPlane, ssimFfmpegAll } from './metrics/ssim-ffmpeg.js';
export { ssimRgb7 } from './metrics/ssim-rgb7.js';
export { psnrY } from './metrics/psnr.js';
export { summarizeSsim, summarizePsnr, percentileLinear, harmonicMean } from './metrics/series.js';
export { VideoMetrics, AudioMetrics, AudioChannelMetrics, LagEstimateReason, SsimSeries, PsnrSeries, PairMeasurement, MeasureOutcome, MeasureFailure, RgbConverter, RgbMatrix, RgbRange, PlanField, FieldMismatch, PlanMismatch, InferencexFigures, InferencexMetrics, InferencexTemplate } from './schemas/measurement.js';
export { FPS_SLACK, PLAN_FIELDS, planFpsText } from './media/plan-conformance.js';
export type { MediaPlanSpec } from './media/plan-conformance.js';
export { checkRunMedia } from './archive/run-media.js';
export { analyseRunClips } from './archive/run-clips.js';
export type { RunClipsAnalysis, RunClipsOptions, SlotClip } from './archive/run-clips.js';
export { analyseClip } from './pool/analyse-clip.js';
export type { AnalyseClipOptions } from './pool/analyse-clip.js';
export { AnalysedClip, ClipAnalysis, ClipOutcome, ClipVideo, ClipAudio, ClipCode, ClipReason, PairClips, IndexRange, UNCONDITIONAL_CLIP_CODES, isUnconditionallyValid } from './schemas/clip.js';
export type { RunMediaCheck, RunMediaOptions, SlotMediaCheck } from './archive/run-media.js';
export type { FfmpegSsim } from './metrics/ssim-ffmpeg.js';
export type { MeasureFailureCode, MeasureOptions, MeasurePool, MeasureProgress, MeasureRunOptions, PairJob, ClipJob, PoolOptions } from './pool/api.js';
export type { FramePlanes, PairCapture } from './media/frames.js';
export { generateRuns, MANIFEST_FILE, RUN_FORMAT_SUFFIX, DIFFERENCES, DIFFERENCE_INFO, SITE_DIFFERENCES, TELEMETRY_GAP_SITE, SITE_NAMES, DEFAULT_SITES } from './synth/index.js';
export type { GeneratedRun, GeneratedRuns, GeneratedSlot, Difference, DifferenceInfo, ExpectedOutcome, GenerateProgress, GenerateRunsOptions, RunFormat, SiteName, SynthSize } from './synth/index.js';
export { verifyRun, openVerifiedRun } from './archive/verify.js';
export { summarizeRun } from './archive/summary.js';
export { DEFAULT_LIMITS } from './archive/limits.js';
// Temp folders named by their owner, swept when a killed process left them (docs/report.md, "Stopping a command").
export { checkTempDir, checkTempDirs, makeTempDir, removeTempDir, sweepStaleTempDirs } from './temp.js';
export type {
  ArchiveKind,
  ArchiveLimits,
  CiDescription,
  DigestCheck,
  MediaEntry,
  ProvenanceCheck,
  RunLinks,
  RunSummary,
  VerifiedRun,
  VerifyOptions,
  VerifyResult,
} from './archive/types.js';
// Comparing runs: pairing, thresholds, the bundle and its check.
export { compare } from './compare.js';
export type { CompareOptions } from './compare.js';
export type { CompareProgress, CompareResult, DecoderIdentity } from './comparison/types.js';
// Scale-out: the phases of compare(), shards and their merge (docs/scale-out.md).
export { planComparison } from './comparison/plan.js';
export type { ComparisonPlan, PairRef, PlannedComparison, PlanSettings } from './comparison/plan.js';
export type { PairSide, PlannedPair } from './pairing/slots.js';
export { measurePairs, measureOwnRepetitions, MeasuredPair } from './comparison/measure.js';
export type { MeasureSettings, MeasuredPairs, MeasuredRepetition } from './comparison/measure.js';
export { assembleReport, decoderIdentity } from './comparison/assemble.js';
export type { AssembleSettings } from './comparison/assemble.js';
export { writeBundle } from './comparison/write.js';
export type { WriteBundleSettings } from './comparison/write.js';
export { filesAhead } from './comparison/files-ahead.js';
export type { FilesAhead } from './comparison/files-ahead.js';
export type { PairFile } from './bundle/assets.js';
export { merge } from './shard/merge.js';
export { DEFAULT_REMEASURE } from './shard/remeasure.js';
export type { RemeasureSpec } from './shard/remeasure.js';
export type { MergeOptions } from './shard/merge.js';
export { writePartial } from './shard/write-partial.js';
export type { PartialResult, WritePartialSettings } from './shard/write-partial.js';
export { ShardPartial, PartialPair, PartialRun } from './shard/schema.js';
export { parseShard, shardFromEnvironment, shardIndices, slurmArrayExpression } from './shard/spec.js';
export type { ShardSource, ShardSpec } from './shard/spec.js';
export { sourceDateEpoch } from './time.js';
export { DEFAULT_POLICY } from './policy/default.js';
export { loadPolicy, parsePolicy } from './policy/load.js';
export { evaluatePolicy } from './policy/evaluate.js';
export { workloadDifferences } from './pairing/workload.js';
export type { WorkloadDifference } from './pairing/workload.js';
// Calibration: the same-hardware noise floor (docs/calibration.md).
export { calibrate, calibratedPolicy } from './calibrate/calibrate.js';
export type { CalibrateOptions, CalibrateProgress, CalibrateResult } from './calibrate/calibrate.js';
export { loadCalibration, parseCalibration, calibrationJsonSchema, calibrationProblems } from './calibrate/load.js';
export { checkCalibrateOutputs, writeCalibrateOutputs, calibrationJsonText, policyJsonText } from './calibrate/write.js';
export type { CalibrateOutputs } from './calibrate/write.js';
export { Calibration, PairNoise, ComparisonNoise, MetricNoise } from './calibrate/schema.js';
export { CALIBRATED_METRICS } from './calibrate/metrics.js';
export type { CalibratedMetric, NoiseRange, NoiseValue, Worse } from './calibrate/metrics.js';
export { DEFAULT_ALPHA } from './calibrate/apply.js';
export { canDecide, smallestP } from './calibrate/stats.js';
export { verifyBundle } from './bundle-check/verify.js';
export type { BundleCheck } from './bundle-check/verify.js';
export { Report, RunIdentity, PairReport, Reason, PlanSpec, RunClips } from './schemas/report.js';
export { Policy, PolicyCheck, CheckName, CheckOutcome, CheckResult } from './schemas/policy.js';
// The run archive's JSON files (docs/run-archive.md): schemas that are also the types.
export { CiJson, GithubCiJson, GitlabCiJson, OtherCiJson, CI_PROVIDERS, ciProvider, PlanJson, PlanCase, RunJson, RunRecord, ServerTiming, Window } from './schemas/run-archive.js';
export type { CiProvider } from './schemas/run-archive.js';
export { runArchiveJsonSchemas } from './schemas/run-archive-json-schema.js';
// Board energy, GPU accounting and server timing (issue 6).
export { integratePower } from './power/integrate.js';
export type { PowerOptions } from './power/integrate.js';
export { runPower, runAccounting, countValidClips, validClipsOf } from './power/run.js';
export type { ValidClipsBasis } from './power/run.js';
export { gpuAccounting, GpuAccounting, AccountingBasis, AccountingReasons } from './power/accounting.js';
export type { AccountingInput, AccountingReasonCode } from './power/accounting.js';
export { PowerSummary, PowerAudit, GpuPowerAudit, PowerResult, POWER_METHOD, DEFAULT_MAX_GAP_S } from './power/schemas.js';
export { PowerReasons } from './power/reasons.js';
export type { PowerReasonCode } from './power/reasons.js';
export { deriveServerTiming } from './timing/derive.js';
export { formatDuration } from './timing/duration.js';
export { timingSideBySide } from './timing/side-by-side.js';
export type { TimedRun } from './timing/side-by-side.js';
export { ServerTimingReport, RecordTiming, StageSummary, TimingSideBySide, TIMING_STAGES } from './timing/schemas.js';
export { TimingReasons } from './timing/reasons.js';
export type { TimingReasonCode } from './timing/reasons.js';
// Identity attested by the CI provider: fetch a run's artifact with the provider's record of it (docs/provenance.md).
export { fetchRun, DEFAULT_API_URL } from './provider/fetch.js';
export { DEFAULT_FETCH_LIMITS } from './provider/guard.js';
export type { FetchLimits } from './provider/guard.js';
export type { FetchRunOptions, FetchRunResult, FetchProgress } from './provider/fetch.js';
export { Provenance, ProvenanceRun, ProvenanceArtifact, ProviderRequest, provenanceJsonSchema, provenancePath } from './provider/schema.js';
// Two reports' measured values, pair by pair (docs/diff.md).
export { diffReports } from './diff/diff.js';
export type { DiffChange, DiffContext, DiffLocation, DiffOneSided, DiffOptions, DiffRun, DiffSide, ReportDiff, SeriesDifference, Tolerance } from './diff/diff.js';
export { DEFAULT_MAX_REPORT_BYTES } from './diff/load.js';
// Reports that CI systems read: JUnit XML and the GitHub job summary (docs/ci.md).
export { junitXml } from './ci/junit.js';
export { clipsText } from './ci/format.js';
export { jobSummary, refusalSummary, SUMMARY_MAX_ROWS } from './ci/summary.js';
export type { SummaryBundle } from './ci/summary.js';
export { checkCiOutputs, writeJunitFile, appendJobSummary } from './ci/files.js';
export type { CiOutputs } from './ci/files.js';
export { checkBounded, OPTION_BOUNDS, withinBounds } from './bounds.js';
export type { BoundedOption } from './bounds.js';
