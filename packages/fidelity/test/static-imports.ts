/** The built library's static import graph, for tests of what an entry or a thread loads. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * Every library module a built file loads through its static imports, itself included, relative to
 * dist/ (`import ... from './x.js'` and `export ... from`; not `import('./x.js')`, loaded on use, nor
 * `import type`, which the build erases).
 */
export function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(path.join(DIST, file), 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms)) walk(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)));
  };
  walk(entry);
  return seen;
}
