/**
 * The architecture of docs/architecture.md as tests: dependency-cruiser
 * reads every import of the library and the CLI (type-only ones included)
 * and checks the rules of .dependency-cruiser.mjs (no cycle, layers only
 * downward, the CLI through the public entries only, its start-up statically through the light one). The rules are shown to
 * bite on a small tree that breaks each of them. And no room of the library
 * holds more than 15% of its lines, so no folder becomes the place where
 * everything goes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = path.join(ROOT, 'packages', 'fidelity', 'src');
const CONFIG = path.join(ROOT, '.dependency-cruiser.mjs');
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Cruised {
  modules: { source: string; dependencies: { module: string; resolved: string; couldNotResolve: boolean }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: unknown[] }[]; totalCruised: number };
}

/** Runs dependency-cruiser with the repo's rules over `dirs` (relative to `cwd`), as `npx depcruise` would. */
function cruise(cwd: string, dirs: string[]): Cruised {
  const r = spawnSync(process.execPath, [DEPCRUISE, ...dirs, '--config', CONFIG, '--output-type', 'json'], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (!r.stdout) throw new Error(`dependency-cruiser gave no result: ${r.stderr}`);
  return JSON.parse(r.stdout) as Cruised;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-architecture-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the import rules (.dependency-cruiser.mjs)', () => {
  it('hold for the library and the CLI: no cycle, layers only downward, the CLI through the public entries', () => {
    const result = cruise(ROOT, ['packages/fidelity/src', 'packages/cli/src']);
    const shown = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(shown).toEqual([]);
    // Every module was read and every import of our own resolved: a rule cannot pass because an edge went missing.
    const ours = (p: string): boolean => p.startsWith('packages/');
    expect(result.modules.filter((m) => m.source.startsWith('packages/fidelity/src/')).length).toBe(sourceFiles(SRC).length);
    const unresolved = result.modules.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve && /^(\.|media-fidelity)/.test(d.module)).map((d) => `${m.source} -> ${d.module}`));
    expect(unresolved).toEqual([]);
    const cliToLibrary = result.modules.filter((m) => m.source.startsWith('packages/cli/src/')).flatMap((m) => m.dependencies.filter((d) => ours(d.resolved) && !d.resolved.startsWith('packages/cli/')).map((d) => d.resolved));
    expect(new Set(cliToLibrary)).toEqual(new Set(['packages/fidelity/dist/index.js', 'packages/fidelity/dist/base.js', 'packages/fidelity/dist/verify.js']));
  });

  it('bite: a tree that breaks each rule gets each rule named', () => {
    const dir = path.join(tmp, 'broken');
    const file = (rel: string, text: string): void => {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    };
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(ROOT, 'tsconfig.base.json'), path.join(dir, 'tsconfig.base.json'));
    const lib = 'packages/fidelity/src';
    file(`${lib}/index.ts`, "export { compare } from './compare.js';\n");
    file(`${lib}/compare.ts`, "import { write } from './comparison/write.js';\nexport const compare = write;\n");
    // A phase that imports the entry point composing it (the cycle this repo had), and a later phase.
    file(`${lib}/comparison/write.ts`, "import type { compare } from '../compare.js';\nimport { render } from '../pages/page.js';\nexport const write = (c?: typeof compare) => render(c);\n");
    file(`${lib}/comparison/plan.ts`, "import { assemble } from './assemble.js';\nexport const plan = assemble;\n");
    file(`${lib}/comparison/assemble.ts`, 'export const assemble = 1;\n');
    // Pages that reach up into the phases, and into the bundle's file writers.
    file(`${lib}/pages/page.tsx`, "import { plan } from '../comparison/plan.js';\nimport { still } from '../bundle/stills.js';\nexport const render = (x?: unknown) => [plan, still, x];\n");
    file(`${lib}/bundle/stills.ts`, 'export const still = 1;\n');
    // Metrics that use the media room, and output folders that use the bundle.
    file(`${lib}/metrics/ssim.ts`, "import { decode } from '../media/decode.js';\nexport const ssim = decode;\n");
    file(`${lib}/media/decode.ts`, 'export const decode = 1;\n');
    file(`${lib}/output/guard.ts`, "import { still } from '../bundle/stills.js';\nexport const guard = still;\n");
    // A domain room that reaches a layer above it.
    file(`${lib}/policy/judge.ts`, "import { assemble } from '../comparison/assemble.js';\nexport const judge = assemble;\n");
    // The CLI reaching past the public entry, and its start-up importing a command's module statically.
    file('packages/cli/src/main.ts', "import { compare } from '../../fidelity/src/compare.js';\nimport { runCommand } from './commands/verify.js';\nexport const main = [compare, runCommand];\n");
    file('packages/cli/src/commands/verify.ts', 'export const runCommand = 1;\n');
    const names = new Set(cruise(dir, ['packages/fidelity/src', 'packages/cli/src']).summary.violations.map((v) => v.rule.name));
    for (const rule of [
      'no-circular',
      'layer-phases',
      'entry-points-from-index',
      'phase-order-assemble',
      'layer-pages',
      'pages-read-the-bundle-layout-only',
      'metrics-pure',
      'output-shared-only',
      'lower-layers',
      'cli-public-entry',
      'cli-start-light',
    ]) {
      expect(names.has(rule), rule).toBe(true);
    }
  });
});

function lines(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('rooms', () => {
  it('no top-level room of packages/fidelity/src holds more than 15% of its lines (its TypeScript files)', () => {
    const byRoom = new Map<string, number>();
    for (const file of sourceFiles(SRC)) {
      const room = path.relative(SRC, file).split(path.sep)[0]!;
      byRoom.set(room, (byRoom.get(room) ?? 0) + lines(file));
    }
    const total = [...byRoom.values()].reduce((a, b) => a + b, 0);
    const over = [...byRoom].filter(([, n]) => n > 0.15 * total).map(([room, n]) => `${room}: ${n} of ${total} lines (${((100 * n) / total).toFixed(1)}%)`);
    expect(over).toEqual([]);
    expect(byRoom.size).toBeGreaterThan(10);
  });

  it('docs/architecture.md names every room', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rooms = readdirSync(SRC).filter((name) => statSync(path.join(SRC, name)).isDirectory());
    expect(rooms.filter((room) => !doc.includes(`\`${room}/\``))).toEqual([]);
  });
});
