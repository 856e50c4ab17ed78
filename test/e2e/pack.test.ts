/**
 * The packages as another tool's author gets them: `npm pack` (and `pnpm pack`) of the library
 * and the CLI, installed with plain npm into an empty project outside the repository, then the
 * `fidelity` bin, the README's library example and `measurePair` run there.
 *
 * No network: npm runs with an empty cache of its own against a registry served by this test on
 * 127.0.0.1. That registry holds exactly the library's dependency closure as installed in this
 * workspace: each published package put back into a package tarball (the files pnpm extracted
 * from the registry tarball, hard links resolved), every version of it that the closure holds
 * (two packages may need two versions of a third). The project itself declares only
 * media-fidelity and media-fidelity-cli, as a user's would, and npm resolves the rest as it
 * would from npmjs.org.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from './helpers.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', ...env }, maxBuffer: 64 << 20, timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

// Nothing may come from the network: an empty cache, and (until the test's own registry is up) a registry that does not answer.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-pack-'));
const offline: NodeJS.ProcessEnv = {
  npm_config_cache: path.join(tmp, 'npm-cache'),
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
let registry: http.Server | undefined;
afterAll(async () => {
  await new Promise<void>((resolve) => (registry ? registry.close(() => resolve()) : resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

/** The manifest fields npm reads from a packument version (what the real registry serves). */
const MANIFEST_FIELDS = ['name', 'version', 'dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'os', 'cpu', 'engines', 'libc'];

/**
 * A read-only npm registry on 127.0.0.1 for the given tarballs: GET /<name> answers the
 * packument (every version with its manifest and dist), GET /-/<file> the tarball. Unknown
 * names are 404, as on npmjs.org for an optional dependency of another platform.
 */
async function serveRegistry(packages: Map<string, Map<string, { manifest: Record<string, unknown>; file: string }>>): Promise<string> {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]!).replace(/^\/+/, '');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (url.startsWith('-/')) {
      const file = [...packages.values()].flatMap((v) => [...v.values()]).find((e) => path.basename(e.file) === url.slice(2));
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(readFileSync(file.file));
    }
    const versions = packages.get(url);
    if (!versions) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const doc = { name: url, 'dist-tags': { latest: [...versions.keys()].at(-1) }, versions: {} as Record<string, unknown> };
    for (const [v, { manifest, file }] of versions) {
      const bytes = readFileSync(file);
      const picked = Object.fromEntries(MANIFEST_FIELDS.filter((k) => manifest[k] !== undefined).map((k) => [k, manifest[k]]));
      doc.versions[v] = {
        ...picked,
        dist: {
          tarball: `${base}/-/${path.basename(file)}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        },
      };
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc));
  });
  registry = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const LIB = path.join(ROOT, 'packages', 'fidelity');
const CLI = path.join(ROOT, 'packages', 'cli');
const PNPM_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }).packageManager.replace(/^pnpm@/, '');
const version = (JSON.parse(readFileSync(path.join(LIB, 'package.json'), 'utf8')) as { version: string }).version;

async function npmPack(pkgDir: string, dest: string): Promise<string> {
  mkdirSync(dest, { recursive: true });
  const r = await run('npm', ['pack', '--pack-destination', dest, '--json'], pkgDir, offline);
  expect(r.code, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string }[];
  return path.join(dest, (info as { filename: string }).filename);
}

async function unpack(tarball: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmp, 'unpacked-'));
  const r = await run('tar', ['-xzf', tarball, '-C', dir], tmp);
  expect(r.code, r.stderr).toBe(0);
  return path.join(dir, 'package');
}

function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, r));
    else out.push(r);
  }
  return out.sort();
}

/** What a careful user checks in a tarball: it runs, documents itself, and hides nothing broken. */
function checkTarball(dir: string, expected: string[]): void {
  const files = filesUnder(dir);
  for (const f of ['package.json', 'README.md', 'LICENSE', ...expected]) expect(files, f).toContain(f);
  expect(readFileSync(path.join(dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  expect(files.filter((f) => f.includes('tsbuildinfo'))).toEqual([]);
  // Every source map (and declaration map) points at files that are in the tarball.
  const maps = files.filter((f) => f.endsWith('.map'));
  expect(maps.length).toBeGreaterThan(0);
  for (const m of maps) {
    const map = JSON.parse(readFileSync(path.join(dir, m), 'utf8')) as { sources: string[] };
    for (const s of map.sources) expect(existsSync(path.resolve(path.dirname(path.join(dir, m)), s)), `${m} -> ${s}`).toBe(true);
  }
  const text = readFileSync(path.join(dir, 'package.json'), 'utf8');
  expect(text).not.toMatch(/workspace:/);
}

/** The published dependency closure of the library, as installed in this workspace: name@version -> folder. */
function dependencyClosure(): Map<string, { name: string; dir: string }> {
  const seen = new Map<string, { name: string; dir: string }>();
  const resolveFrom = (from: string, name: string): string | undefined => {
    for (let d = from; ; d = path.dirname(d)) {
      const candidate = path.join(d, 'node_modules', name);
      if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
      if (path.dirname(d) === d) return undefined;
    }
  };
  const walk = (dir: string): void => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const [field, optional] of [['dependencies', false], ['optionalDependencies', true]] as const) {
      for (const name of Object.keys(pkg[field] ?? {})) {
        const found = resolveFrom(dir, name);
        if (!found) {
          // An optional dependency for another platform is simply not installed.
          if (optional) continue;
          throw new Error(`${name}, a dependency of ${dir}, is not installed: run the workspace install first`);
        }
        const dep = JSON.parse(readFileSync(path.join(found, 'package.json'), 'utf8')) as { name: string; version: string };
        const key = `${dep.name}@${dep.version}`;
        if (seen.has(key)) continue;
        seen.set(key, { name: dep.name, dir: found });
        walk(found);
      }
    }
  };
  walk(realpathSync(LIB));
  return seen;
}

/**
 * Whether an engines.node range admits Node 20.19.0: the ranges the closure uses (`>=N`, `>= N.M`,
 * `^N`, `N.x`, `||` of those). npm's own check runs against the Node that runs the test, which may be
 * newer than 20.19; this reads each range against the oldest Node the packages promise.
 */
function admitsNode20(range: string): boolean {
  const v = [20, 19, 0];
  const cmp = (a: number[], b: number[]) => a.map((x, i) => x - (b[i] ?? 0)).find((d) => d !== 0) ?? 0;
  return range.split('||').some((alt) =>
    alt.trim().replace(/([<>=^~]+)\s+/g, '$1').split(/\s+/).every((part) => {
      const m = /^(>=|>|<=|<|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(part.trim());
      if (!m) return true;
      const op = m[1] ?? '';
      const nums = [m[2], m[3], m[4]].map((n) => (n === undefined || n === 'x' || n === '*' ? 0 : Number(n)));
      const c = cmp(v, nums);
      if (op === '>=') return c >= 0;
      if (op === '>') return c > 0;
      if (op === '<=') return c <= 0;
      if (op === '<') return c < 0;
      if (op === '^') return v[0] === nums[0] && c >= 0;
      if (op === '~') return v[0] === nums[0] && v[1] === nums[1] && c >= 0;
      return m[3] === undefined || m[3] === 'x' ? v[0] === nums[0] : c === 0;
    }),
  );
}

/** A build output whose source does not exist. */
const STALE = 'zz-deleted-module.js';

let libTarball: string;
let cliTarball: string;
let project: string;

describe('the packed packages', () => {
  beforeAll(async () => {
    // What a build leaves behind after a module is renamed or deleted (tsc -b never removes an output).
    writeFileSync(path.join(LIB, 'dist', STALE), 'export {};\n');
    libTarball = await npmPack(LIB, path.join(tmp, 'npm'));
    cliTarball = await npmPack(CLI, path.join(tmp, 'npm'));
  });

  it('npm pack builds first and gives clean, self-describing tarballs with real dependency versions', async () => {
    const lib = await unpack(libTarball);
    checkTarball(lib, ['dist/index.js', 'dist/index.d.ts', 'dist/pool/worker.js', 'assets/metrics-kernels.wasm', 'src/index.ts']);
    // The output of a source that no longer exists is pruned before packing, not shipped.
    expect(existsSync(path.join(lib, 'dist', STALE))).toBe(false);
    expect(existsSync(path.join(LIB, 'dist', STALE))).toBe(false);
    const cli = await unpack(cliTarball);
    checkTarball(cli, ['bin/fidelity.js', 'dist/main.js']);
    const cliPkg = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(cliPkg.dependencies['media-fidelity']).toBe(version);
    expect(cliPkg.bin).toEqual({ fidelity: './bin/fidelity.js' });
    // The workspace manifest is back as it was: the rewrite lives only inside the tarball.
    expect(readFileSync(path.join(CLI, 'package.json'), 'utf8')).toMatch(/"media-fidelity": "workspace:\*"/);
    expect(existsSync(path.join(CLI, 'package.json.prepack'))).toBe(false);
  });

  it('pnpm pack gives the same files and the same dependency ranges', async () => {
    const dest = path.join(tmp, 'pnpm');
    mkdirSync(dest);
    // The pinned pnpm: on PATH when installed that way, else the copy `npm run setup` put in npx's cache.
    const onPath = await run('pnpm', ['--version'], ROOT);
    const pnpm = onPath.code === 0 && onPath.stdout.trim() === PNPM_VERSION ? ['pnpm'] : ['npx', '--offline', '-y', `pnpm@${PNPM_VERSION}`];
    for (const [dir, npmTarball] of [[LIB, libTarball], [CLI, cliTarball]] as const) {
      const r = await run(pnpm[0] as string, [...pnpm.slice(1), 'pack', '--pack-destination', dest], dir, { npm_config_update_notifier: 'false' });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const fromPnpm = await unpack(path.join(dest, path.basename(npmTarball)));
      const fromNpm = await unpack(npmTarball);
      expect(filesUnder(fromPnpm)).toEqual(filesUnder(fromNpm));
      const deps = (d: string) => (JSON.parse(readFileSync(path.join(d, 'package.json'), 'utf8')) as { dependencies?: unknown }).dependencies;
      expect(deps(fromPnpm)).toEqual(deps(fromNpm));
    }
  });

  it('installs with plain npm, offline, into an empty project outside the repository', async () => {
    project = path.join(tmp, 'project');
    // As `npm init` makes it: no "type", so a .js file is CommonJS (README, "As a library", says which name to use).
    const depsDir = path.join(tmp, 'deps');
    mkdirSync(project);
    mkdirSync(depsDir);
    expect(path.relative(ROOT, project).startsWith('..')).toBe(true);
    const packages = new Map<string, Map<string, { manifest: Record<string, unknown>; file: string }>>();
    for (const [key, { name, dir }] of dependencyClosure()) {
      const file = path.join(depsDir, `${key.replace(/[@/]/g, '_')}.tgz`);
      // Hard links dereferenced: pnpm's store links identical files, and npm does not extract link entries.
      const r = await run('tar', ['-czf', file, '--hard-dereference', '--transform', 's,^\\.,package,', '-C', dir, '.'], tmp);
      expect(r.code, r.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string };
      if (!packages.has(name)) packages.set(name, new Map());
      packages.get(name)!.set(manifest.version, { manifest, file });
    }
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['zod', 'sharp', 'piscina', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe']));
    offline.npm_config_registry = await serveRegistry(packages);
    writeFileSync(
      path.join(project, 'package.json'),
      `${JSON.stringify({ name: 'uses-fidelity', version: '1.0.0', private: true, dependencies: { 'media-fidelity': `file:${libTarball}`, 'media-fidelity-cli': `file:${cliTarball}` } }, null, 2)}\n`,
    );
    const r = await run('npm', ['install'], project, offline);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // engines says Node >= 20.19: no dependency may ask for more (npm warns EBADENGINE on this Node, or would on 20.19).
    expect(r.stdout + r.stderr).not.toMatch(/EBADENGINE/);
    for (const [key, { dir }] of dependencyClosure()) {
      const wanted = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node;
      if (wanted !== undefined) expect(admitsNode20(wanted), `${key} engines.node ${wanted}`).toBe(true);
    }
    // Real copies, not links back into the workspace.
    for (const name of ['media-fidelity', 'media-fidelity-cli', 'zod']) {
      expect(realpathSync(path.join(project, 'node_modules', name)).startsWith(project), name).toBe(true);
    }

    const ver = await run('npx', ['--offline', 'fidelity', '--version'], project, offline);
    expect(ver.code, ver.stderr).toBe(0);
    expect(ver.stdout.trim()).toBe(version);

    const doctor = await run('npx', ['--offline', 'fidelity', 'doctor', '--json'], project, offline);
    expect(doctor.code, doctor.stderr).toBe(0);
    const doc = JSON.parse(doctor.stdout) as { ffmpeg: { source: string; path: string }; ffprobe: { source: string; path: string } };
    expect(doc.ffmpeg.source).toBe(doc.ffprobe.source);
    if (doc.ffmpeg.source === 'installer') expect(doc.ffmpeg.path.startsWith(project)).toBe(true);
  }, 600_000);

  it("runs the README's library example on what `fidelity generate` writes", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## As a library'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toMatch(/from 'media-fidelity'/);
    for (const format of ['dir', 'zip', 'tar.gz']) {
      const g = await run('npx', ['--offline', 'fidelity', 'generate', '--out', 'runs', '--format', format], project, offline);
      expect(g.code, g.stderr).toBe(0);
    }
    // The file name the README gives, in a project without "type": "module" (top-level await needs an ES module).
    const name = /save this as \*\*`([^`]+)`\*\* and run `node \1`/.exec(section)?.[1];
    expect(name).toBe('example.mjs');
    writeFileSync(path.join(project, name!), example as string);
    const r = await run(process.execPath, [name!], project, offline);
    expect(r.code, r.stderr.slice(-4000)).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('true');
    expect(r.stdout).toMatch(/^B200 /m);
    expect(r.stdout).toMatch(/^H100 /m);
    const check = await run('npx', ['--offline', 'fidelity', 'verify-bundle', 'bundle'], project, offline);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 600_000);

  it('measurePair on a committed fixture pair, from ESM and from require()', async () => {
    const pair = (slot: string) => [path.join(FIXTURES, 'h200', 'media', `${slot}.mp4`), path.join(FIXTURES, 'b200', 'media', `${slot}.mp4`)];
    const script = `
import { measurePair } from 'media-fidelity';
const out = {};
for (const [name, a, b] of JSON.parse(process.argv[2])) {
  const o = await measurePair(a, b);
  out[name] = o.ok ? { ok: true, frames: o.measurement.video.frames, ssim_min: o.measurement.video.ssim.min, identical: o.measurement.video.identical } : o;
}
console.log(JSON.stringify(out));
`;
    writeFileSync(path.join(project, 'measure.mjs'), script);
    // c000 is identical on both sites, c003 has heavy noise on B200 (fixtures/README.md).
    const args = JSON.stringify([['identical', ...pair('measurement-r000-c000')], ['noise', ...pair('measurement-r000-c003')]]);
    const r = await run(process.execPath, ['measure.mjs', args], project, offline);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, { ok: boolean; frames: number; ssim_min: number; identical: boolean }>;
    expect(out.identical).toEqual({ ok: true, frames: 12, ssim_min: 1, identical: true });
    expect(out.noise?.ok).toBe(true);
    expect(out.noise?.identical).toBe(false);
    expect(out.noise?.ssim_min).toBeLessThan(0.92);

    // require(esm): the README promises it from Node 20.19, which is what engines asks for.
    const cjs = await run(process.execPath, ['-e', "const f = require('media-fidelity'); console.log(typeof f.measurePair, f.TOOL_VERSION)"], project, offline);
    expect(cjs.code, cjs.stderr).toBe(0);
    expect(cjs.stdout.trim()).toBe(`function ${version}`);
  }, 300_000);
});
