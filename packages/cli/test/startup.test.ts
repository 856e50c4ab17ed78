/**
 * A command loads only what it uses (docs/performance.md, "Start-up"): the
 * built CLI (bin/fidelity.js, so build first) runs as a process with a module
 * hook that records every module it loads, and the test reads the list.
 * `--version`, `--help` and a usage error load no command module and no room
 * of the library; `verify` loads verify's module but not compare's, and none
 * of the packages behind measuring, pages, images or the network. Which
 * modules load is the behaviour; how long they take is measured in
 * bench/startup.mjs, never here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'fidelity.js');
const RUN = path.join(ROOT, 'fixtures', 'runs', 'h200');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-startup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The load hook runs on the loader's thread: it appends each module's URL (ESM and the CommonJS
// entries it loads) to the file the environment names, before the module is evaluated.
const HOOK = path.join(tmp, 'hook.mjs');
writeFileSync(
  HOOK,
  "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(process.env.FIDELITY_LOAD_LOG, url + '\\n');\n  return next(url, context);\n}\n",
);
const REGISTER = path.join(tmp, 'register.mjs');
writeFileSync(REGISTER, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(HOOK).href)});\n`);

let n = 0;
/** Runs the CLI with `args`; its exit status and the modules it loaded, as paths relative to the repository (packages as `pkg:<name>`). */
function loaded(args: string[]): { status: number | null; modules: string[] } {
  const log = path.join(tmp, `loaded-${n++}.txt`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(REGISTER).href, BIN, ...args], { encoding: 'utf8', env: { ...process.env, FIDELITY_LOAD_LOG: log } });
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => {
      const file = fileURLToPath(url);
      const pkg = /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
      return pkg ? `pkg:${pkg[1]!.replace(/\\/g, '/')}` : path.relative(ROOT, file).split(path.sep).join('/');
    });
  return { status: r.status, modules: [...new Set(modules)] };
}

/** The packages behind measuring (piscina), pages (preact), stills (sharp), bundle checks (parse5), packed archives and the network (octokit). */
const HEAVY = /^pkg:(sharp|piscina|preact|preact-render-to-string|@octokit\/.*|parse5|yauzl|yazl|tar-stream)$/;

describe('start-up: a command loads only what it uses', () => {
  it('--version, --help and a usage error load no command module, no library room and no zod', () => {
    for (const args of [['--version'], ['--help'], ['compare', '--bogus'], ['verify', '--help'], ['no-such-command']]) {
      const { status, modules } = loaded(args);
      expect(status, args.join(' ')).toBe(args[0] === '--version' || args.includes('--help') ? 0 : 2);
      // The shell itself: main, io, options, the command table; from the library only its light entry.
      expect(modules, args.join(' ')).toContain('packages/cli/dist/commands/index.js');
      expect(modules.filter((m) => /^packages\/cli\/dist\/commands\/(?!index\.js|types\.js)/.test(m)), args.join(' ')).toEqual([]);
      expect(modules.filter((m) => m.startsWith('packages/fidelity/')).sort(), args.join(' ')).toEqual([
        'packages/fidelity/dist/archive/limits.js',
        'packages/fidelity/dist/base.js',
        // The bounds of --threads and --decode-timeout, shared with the library (no room, no zod).
        'packages/fidelity/dist/bounds.js',
        'packages/fidelity/dist/errors.js',
        'packages/fidelity/dist/metrics/set-names.js',
        'packages/fidelity/dist/version.js',
        // Counts in agreement with their nouns (counted, byCount), for verify's lines: no imports of its own.
        'packages/fidelity/dist/words.js',
      ]);
      expect(modules.filter((m) => m.startsWith('pkg:')), args.join(' ')).toEqual([]);
    }
  });

  it("verify loads verify's module and the library, not compare's module, measuring, pages, images or octokit", () => {
    const { status, modules } = loaded(['verify', RUN]);
    expect(status).toBe(0);
    expect(modules).toContain('packages/cli/dist/commands/verify.js');
    expect(modules).toContain('packages/fidelity/dist/archive/verify.js');
    expect(modules.filter((m) => /^packages\/cli\/dist\/commands\/(compare|merge|calibrate|demo|fetch|generate|diff|power|doctor|verify-bundle|ci-outputs)\.js$/.test(m))).toEqual([]);
    expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
    // The pages, the bundle page scanner and the zip and tar readers (a folder is verified here) load on first use.
    expect(modules.filter((m) => /^packages\/fidelity\/dist\/(pages\/|bundle-check\/scan\.js|archive\/source-(zip|tar)\.js)/.test(m))).toEqual([]);
  });

  it('the hook sees what a command that needs them loads (the checks above can fail)', () => {
    const { status, modules } = loaded(['verify-bundle', path.join(tmp, 'no-such-bundle')]);
    expect(status).toBe(2);
    expect(modules).toContain('packages/cli/dist/commands/verify-bundle.js');
    expect(modules).toContain('packages/fidelity/dist/bundle-check/scan.js');
    expect(modules).toContain('pkg:parse5');
  });
});
