/**
 * The source files of the two packages, for the tests that read source text
 * (the reason-code catalogue, the check and clip-code spelling): every
 * TypeScript and JavaScript file below a folder, in a stable order, so that
 * both tests read the same files (.tsx pages included).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every .ts, .tsx, .mts, .cts, .js, .mjs and .cjs file below `dir`, sorted by path. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return sourceFiles(file);
      return /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(name) ? [file] : [];
    });
}
