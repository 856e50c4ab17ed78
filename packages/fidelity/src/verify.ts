// The verifying entry, `media-fidelity/verify`: a subset of the index's names (the same modules) for
// a program that checks one run archive and its media and nothing more, as `fidelity verify` does.
// It loads the archive, its schemas and the probe, not the rooms of measuring, the pages, the bundle
// or the synthetic runs that the index's own imports bring in (docs/performance.md, "Start-up").
export { FidelityError, isFidelityError } from './errors.js';
export type { Problem, ProblemLocation } from './errors.js';
export { verifyRun, openVerifiedRun } from './archive/verify.js';
export { summarizeRun } from './archive/summary.js';
export { checkRunMedia } from './archive/run-media.js';
export type { RunMediaCheck, RunMediaOptions, SlotMediaCheck } from './archive/run-media.js';
export { DEFAULT_LIMITS } from './archive/limits.js';
export { planFpsText } from './media/plan-conformance.js';
export { resolveFfmpeg } from './media/ffmpeg.js';
export type { BinaryIdentity, BinarySource, BinaryKind, FfmpegToolchain, ResolveOptions } from './media/ffmpeg.js';
export type { ArchiveLimits, RunSummary, VerifiedRun, VerifyOptions, VerifyResult } from './archive/types.js';
export { checkTempDirs } from './temp.js';
