// The light public entry, `media-fidelity/base`: a subset of the index's names (the same modules, so
// `instanceof FidelityError` holds across both) that loads no room of the library and no zod. For a
// program that starts often and mostly does little, as the CLI's `--version`, `--help` and usage
// errors do; everything else is in the index (`media-fidelity`), whose rooms load on first use.
export { FidelityError, isFidelityError, ReasonCodes } from './errors.js';
export type { Problem, ProblemLocation } from './errors.js';
export { TOOL_VERSION } from './version.js';
export { byCount, counted } from './words.js';
export { checkBounded, OPTION_BOUNDS, withinBounds } from './bounds.js';
export type { BoundedOption } from './bounds.js';
export { DEFAULT_LIMITS } from './archive/limits.js';
export type { ArchiveLimits } from './archive/types.js';
export { METRIC_NAMES, METRIC_SETS } from './metrics/set-names.js';
export type { MetricName, MetricSetName } from './metrics/set-names.js';
