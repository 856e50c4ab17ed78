/** The files the run archive format defines (docs/run-archive.md); media/ is checked against run.json. */
export const SEAL_FILE = 'SHA256SUMS';
export const METADATA_FILES = [
  'SHA256SUMS',
  'ci.json',
  'plan.json',
  'run.json',
  'telemetry/gpu_metrics.csv',
  'telemetry/server_timing.jsonl',
] as const;
export type MetadataFile = (typeof METADATA_FILES)[number];

const METADATA = new Set<string>(METADATA_FILES);

export function isKnownFile(path: string): boolean {
  return METADATA.has(path) || isMediaFile(path);
}

export function isMediaFile(path: string): boolean {
  return path.startsWith('media/');
}

/** Could this stored name be a metadata file once the layout (root, or under `top`) is known? */
export function metadataCandidate(name: string, top: string | null): boolean {
  if (METADATA.has(name)) return true;
  return top !== null && name.startsWith(`${top}/`) && METADATA.has(name.slice(top.length + 1));
}
