// The architecture as rules (docs/architecture.md, "Rooms and layers"): no import cycle, and
// imports only downward through the layers drawn there. packages/fidelity/test/architecture.test.ts
// runs them in the suite; `npx depcruise packages/fidelity/src packages/cli/src` runs them by hand.
// Type-only imports count: a cycle through types is still a cycle for a reader.

const SRC = '^packages/fidelity/src/';

/**
 * The library's layers, top first. A module may import its own layer and the ones below it, never
 * one above. The last layer is everything else (the domain rooms and the shared top-level files):
 * inside it, the room rules below and the cycle rule keep the order.
 */
export const LAYERS = [
  { name: 'public entry', path: `${SRC}(index|base)\\.ts$` },
  {
    name: 'entry points',
    path: `${SRC}(compare\\.ts$|shard/|calibrate/(calibrate|write)\\.ts$|diff/|ci/|provider/fetch\\.ts$|synth/)`,
  },
  { name: 'phases', path: `${SRC}comparison/` },
  { name: 'pages', path: `${SRC}pages/` },
  { name: 'bundle checking', path: `${SRC}bundle-check/` },
  { name: 'bundle files', path: `${SRC}bundle/` },
  { name: 'output folders', path: `${SRC}output/` },
];

/** The CLI's modules that load at every start, `--version` included. */
const CLI_START = '^packages/cli/src/(main|io|options|interrupt|suggest|text|commands/(index|types))\\.ts$';

const union = (paths) => `(${paths.join('|')})`;

const layerRules = LAYERS.map((layer, i) => ({
  name: `layer-${layer.name.replace(/ /g, '-')}`,
  comment: `${layer.name} imports only its own layer and the ones below (docs/architecture.md)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: union(LAYERS.slice(0, i).map((l) => l.path)) },
})).filter((r, i) => i > 0);

/** A room folder other than the ones named: `room(['metrics'])` matches any other folder of the library. */
const otherRoom = (allowed) => `${SRC}(?!(${allowed.join('|')})/)[^/]+/`;

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycle, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'cli-public-entry',
      comment: 'the CLI imports only the library\'s public entries (packages/fidelity/src/index.ts, base.ts and verify.ts, published as dist/index.js, dist/base.js and dist/verify.js)',
      severity: 'error',
      from: { path: '^packages/cli/src/' },
      to: { path: '^packages/fidelity/', pathNot: '^packages/fidelity/(src/(index|base|verify)\\.ts|dist/(index|base|verify)\\.(js|d\\.ts))$' },
    },
    {
      name: 'cli-start-light',
      comment:
        'what every start loads (main, io, options, the command table) statically imports only itself and the library\'s light entry: a command\'s module and the full library load by import() when a command runs (docs/performance.md, "Start-up")',
      severity: 'error',
      from: { path: CLI_START },
      to: { path: '^packages/', pathNot: `${CLI_START}|^packages/fidelity/(src|dist)/base\\.(ts|js|d\\.ts)$`, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'library-not-cli',
      comment: 'the library knows nothing of its CLI',
      severity: 'error',
      from: { path: SRC },
      to: { path: '^packages/cli/' },
    },
    {
      name: 'lower-layers',
      comment: 'the domain rooms and shared files import none of the layers above them',
      severity: 'error',
      from: { path: SRC, pathNot: union(LAYERS.map((l) => l.path)) },
      to: { path: union(LAYERS.map((l) => l.path)) },
    },
    ...layerRules,
    {
      name: 'entry-points-from-index',
      comment: 'compare(), merge() and calibrate() are composed from the phases, never imported by them',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}index\\.ts$` },
      to: { path: `${SRC}(compare|shard/merge|calibrate/calibrate)\\.ts$` },
    },
    {
      name: 'phase-order',
      comment: 'inside comparison/: types, then plan, measure, the report model, assemble, write; each imports only those before it',
      severity: 'error',
      from: { path: `${SRC}comparison/(types|plan|measure|report-model|assemble)\\.ts$` },
      to: { path: `${SRC}comparison/write\\.ts$` },
    },
    {
      name: 'phase-order-assemble',
      severity: 'error',
      from: { path: `${SRC}comparison/(types|plan|measure|report-model)\\.ts$` },
      to: { path: `${SRC}comparison/assemble\\.ts$` },
    },
    {
      name: 'phase-order-model',
      severity: 'error',
      from: { path: `${SRC}comparison/(types|plan|measure)\\.ts$` },
      to: { path: `${SRC}comparison/report-model\\.ts$` },
    },
    {
      name: 'phase-order-measure',
      severity: 'error',
      from: { path: `${SRC}comparison/(types|plan)\\.ts$` },
      to: { path: `${SRC}comparison/measure\\.ts$` },
    },
    {
      name: 'phase-order-types',
      severity: 'error',
      from: { path: `${SRC}comparison/types\\.ts$` },
      to: { path: `${SRC}comparison/` },
    },
    {
      name: 'pages-read-the-bundle-layout-only',
      comment: 'pages use the bundle\'s file keys, sizes and series choice, never its file writers (rendering must not load sharp)',
      severity: 'error',
      from: { path: `${SRC}pages/` },
      to: { path: `${SRC}bundle/`, pathNot: `${SRC}bundle/(assets-keys|assets-geometry|waveform-size|video-series|layout)\\.ts$` },
    },
    {
      name: 'metrics-pure',
      comment: 'metrics are pure functions over typed arrays: no other room but the schemas of their results, and the shared top-level files',
      severity: 'error',
      from: { path: `${SRC}metrics/` },
      to: { path: otherRoom(['metrics', 'schemas']) },
    },
    {
      name: 'media-below-pool',
      comment: 'media (ffmpeg, decoding) uses metrics and the schemas at most; the pool uses media',
      severity: 'error',
      from: { path: `${SRC}media/` },
      to: { path: otherRoom(['media', 'metrics', 'schemas']) },
    },
    {
      name: 'pool-measures-only',
      comment: 'the pool measures pairs: media, metrics and the schemas of what it returns',
      severity: 'error',
      from: { path: `${SRC}pool/` },
      to: { path: otherRoom(['pool', 'media', 'metrics', 'schemas']) },
    },
    {
      name: 'output-shared-only',
      comment: 'output folders (guards, atomic commit, seal format) use only the shared top-level files',
      severity: 'error',
      from: { path: `${SRC}output/` },
      to: { path: otherRoom(['output']) },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: ['node_modules', '^packages/fidelity/dist/'] },
    exclude: { path: ['\\.d\\.ts$'] },
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
