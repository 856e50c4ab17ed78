import { readFileSync } from 'node:fs';

// Read once from package.json so the report's tool.version can never drift from the published version.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const TOOL_NAME = 'fidelity';
/** The library version (from its package.json); every report records it as `tool.version`. */
export const TOOL_VERSION: string = pkg.version;
