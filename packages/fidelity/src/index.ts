// The public API: an explicit list, nothing else.
export { FidelityError, isFidelityError, ReasonCodes } from './errors.js';
export type { Problem, ProblemLocation } from './errors.js';
export { TOOL_VERSION } from './version.js';
export { resolveFfmpeg, resolveBinary, binaryCandidates } from './media/ffmpeg.js';
export type { BinaryIdentity, BinaryCandidate, BinarySource, FfmpegToolchain, ResolveOptions } from './media/ffmpeg.js';
export { defaultThreadCount } from './pool/threads.js';
