// The public API: an explicit list, nothing else.
export { FidelityError, isFidelityError, ReasonCodes } from './errors.js';
export type { Problem, ProblemLocation } from './errors.js';
export { TOOL_VERSION } from './version.js';
export { resolveFfmpeg, resolveBinary, binaryCandidates } from './media/ffmpeg.js';
export type { BinaryIdentity, BinaryCandidate, BinarySource, FfmpegToolchain, ResolveOptions } from './media/ffmpeg.js';
export { defaultThreadCount } from './pool/threads.js';
// Measuring one pair, in the calling thread or in the worker pool.
export { measurePair, DEFAULT_DECODE_TIMEOUT_MS } from './pool/measure-pair.js';
export { createMeasurePool } from './pool/pool.js';
export { MeasureFailureCodes } from './pool/api.js';
// The metric kernels (docs/metrics.md): pure functions over typed arrays and the per-pair accumulators.
export { createFfmpegSeries, createVideoAccumulator, measureFrameValues } from './metrics/video.js';
export type { FfmpegSeries, FrameValues, PlanarFrame, VideoAccumulator } from './metrics/video.js';
export { createAudioAccumulator } from './metrics/audio.js';
export type { AudioAccumulator } from './metrics/audio.js';
export type { DecodedFrame, FrameGeometry } from './metrics/frame.js';
export { ssimGaussian } from './metrics/ssim-gaussian.js';
export { ssimFfmpegPlane, ssimFfmpegAll } from './metrics/ssim-ffmpeg.js';
export { ssimRgb7 } from './metrics/ssim-rgb7.js';
export { psnrY } from './metrics/psnr.js';
export { summarizeSsim, summarizePsnr, percentileLinear, harmonicMean } from './metrics/series.js';
export { VideoMetrics, AudioMetrics, AudioChannelMetrics, SsimSeries, PsnrSeries, PairMeasurement } from './schemas/measurement.js';
export type { MeasureFailureCode, MeasureOptions, MeasurePool, MeasureProgress, PairJob, PoolOptions } from './pool/api.js';
export { generateRuns, MANIFEST_FILE, DIFFERENCES, DIFFERENCE_INFO, SITE_DIFFERENCES, TELEMETRY_GAP_SITE, SITE_NAMES, DEFAULT_SITES } from './synth/index.js';
export type { GeneratedRun, GeneratedRuns, GeneratedSlot, Difference, DifferenceInfo, ExpectedOutcome, GenerateProgress, GenerateRunsOptions, SiteName, SynthSize } from './synth/index.js';
export { verifyRun, openVerifiedRun } from './archive/verify.js';
export { summarizeRun } from './archive/summary.js';
export { DEFAULT_LIMITS } from './archive/limits.js';
export type {
  ArchiveKind,
  ArchiveLimits,
  DigestCheck,
  MediaEntry,
  RunLinks,
  RunSummary,
  VerifiedRun,
  VerifyOptions,
  VerifyResult,
} from './archive/types.js';
// Comparing runs: pairing, thresholds, the bundle and its check.
export { compare } from './compare.js';
export type { CompareOptions, CompareProgress, CompareResult } from './compare.js';
export { DEFAULT_POLICY } from './policy/default.js';
export { loadPolicy, parsePolicy } from './policy/load.js';
export { evaluatePolicy } from './policy/evaluate.js';
export { workloadDifferences } from './pairing/workload.js';
export type { WorkloadDifference } from './pairing/workload.js';
// Calibration: the same-hardware noise floor (docs/calibration.md).
export { calibrate, calibratedPolicy } from './calibrate/calibrate.js';
export type { CalibrateOptions, CalibrateProgress, CalibrateResult } from './calibrate/calibrate.js';
export { loadCalibration, parseCalibration, calibrationJsonSchema } from './calibrate/load.js';
export { Calibration, PairNoise, ComparisonNoise, MetricNoise } from './calibrate/schema.js';
export { CALIBRATED_METRICS } from './calibrate/metrics.js';
export type { CalibratedMetric, Worse } from './calibrate/metrics.js';
export { DEFAULT_ALPHA } from './calibrate/apply.js';
export { verifyBundle } from './bundle/verify.js';
export type { BundleCheck } from './bundle/verify.js';
export { Report } from './schemas/report.js';
export { Policy } from './schemas/policy.js';
// Board energy, GPU accounting and server timing (issue 6).
export { integratePower } from './power/integrate.js';
export type { PowerOptions } from './power/integrate.js';
export { runPower, runAccounting, countValidClips } from './power/run.js';
export { gpuAccounting, GpuAccounting, AccountingBasis, AccountingReasons } from './power/accounting.js';
export type { AccountingInput, AccountingReasonCode } from './power/accounting.js';
export { PowerSummary, PowerAudit, GpuPowerAudit, PowerResult, POWER_METHOD, DEFAULT_MAX_GAP_S } from './power/schemas.js';
export { PowerReasons } from './power/reasons.js';
export type { PowerReasonCode } from './power/reasons.js';
export { deriveServerTiming } from './timing/derive.js';
export { timingSideBySide } from './timing/side-by-side.js';
export type { TimedRun } from './timing/side-by-side.js';
export { ServerTimingReport, RecordTiming, StageSummary, TimingSideBySide, TIMING_STAGES } from './timing/schemas.js';
export { TimingReasons } from './timing/reasons.js';
export type { TimingReasonCode } from './timing/reasons.js';
