// The synthetic run generator's public surface.
export { generateRuns, MANIFEST_FILE } from './generate.js';
export type { GeneratedRun, GeneratedRuns, GeneratedSlot } from './generate.js';
export { DIFFERENCES, DIFFERENCE_INFO, SITE_DIFFERENCES, TELEMETRY_GAP_SITE } from './differences.js';
export type { Difference, DifferenceInfo, ExpectedOutcome } from './differences.js';
export { DEFAULT_SITES, SITE_NAMES } from './options.js';
export { RUN_FORMAT_SUFFIX } from './archive-file.js';
export type { RunFormat } from './archive-file.js';
export type { GenerateProgress, GenerateRunsOptions, SiteName, SynthSize } from './options.js';
