/**
 * The packages as a user installs them, for the end-to-end tests that do (pack.test.ts,
 * ci-recipe.test.ts): npm pack of the library and the CLI, and a read-only npm registry on
 * 127.0.0.1 that serves exactly the library's dependency closure as installed in this workspace,
 * so npm installs the tarballs with no network, resolving the rest as it would from npmjs.org.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT, sha256 } from './helpers.js';
import { inputDigest, shared, takeLock } from '../shared/store.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', ...env }, maxBuffer: 64 << 20, timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export const LIB = path.join(ROOT, 'packages', 'fidelity');
export const CLI = path.join(ROOT, 'packages', 'cli');

/** npm's settings for a test that must not reach the network: an empty cache under `tmp`, and a registry that does not answer until {@link serveRegistry} gives one. */
export function offlineNpm(tmp: string): NodeJS.ProcessEnv {
  return {
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/**
 * Runs `fn` holding the run-wide packing lock. A pack's hooks rewrite the workspace package's
 * package.json and prune its dist/ (scripts/pack-hooks.mjs), so two packs of one package at once,
 * from two test files, would restore each other's backups: every pack (npm's or pnpm's) runs inside
 * this, with whatever it prepares in the workspace first.
 */
export async function packing<T>(fn: () => Promise<T>): Promise<T> {
  const release = await takeLock('workspace-pack');
  try {
    return await fn();
  } finally {
    release();
  }
}

/**
 * Asks for a shared entry (test/shared/store.ts) between two packs: its key hashes each package's
 * dist/ (and here its manifest), which a pack under way prunes and rewrites, so the key is taken
 * holding the packing lock; the entry is then built (or waited for) without it.
 */
async function betweenPacks<T>(ask: () => Promise<T>): Promise<T> {
  let entry!: Promise<T>;
  await packing(async () => {
    entry = ask();
  });
  return entry;
}

/** What a pack reads besides the packages' sources and builds (every shared key holds those): their manifests, READMEs, licences, bin/ and assets/, and the pack hooks. */
function packInputs(): unknown {
  const files = [...[LIB, CLI].flatMap((d) => ['package.json', 'README.md', 'LICENSE'].map((f) => path.join(d, f))), path.join(ROOT, 'scripts', 'pack-hooks.mjs')];
  return {
    files: files.map((f) => [path.relative(ROOT, f), sha256(readFileSync(f))]),
    dirs: [path.join(LIB, 'assets'), path.join(CLI, 'bin')].map((d) => [path.relative(ROOT, d), inputDigest(d)]),
  };
}

export interface PackedPackages {
  lib: string;
  cli: string;
}

/**
 * The two tarballs `npm pack` makes of this clone, as a shared entry, for the tests that install
 * them rather than test packing (ci-recipe.test.ts). pack.test.ts, which tests packing, always
 * packs for itself and gives its tarballs here as `seed`: whichever of the two files asks first
 * makes the entry, so the run packs each package once less. The entry is read-only: copy a tarball
 * before changing it.
 */
export async function packedPackages(seed?: PackedPackages): Promise<PackedPackages> {
  const entry = await betweenPacks(() =>
    shared('packed-packages', packInputs(), async (dir): Promise<PackedPackages> => {
      if (seed) {
        for (const t of [seed.lib, seed.cli]) copyFileSync(t, path.join(dir, path.basename(t)));
        return { lib: path.basename(seed.lib), cli: path.basename(seed.cli) };
      }
      // npm's cache and logs outside the entry: only the tarballs are shared.
      const cache = mkdtempSync(path.join(os.tmpdir(), 'fidelity-pack-cache-'));
      try {
        const [lib, cli] = await packing(async () => [await npmPack(LIB, dir, offlineNpm(cache)), await npmPack(CLI, dir, offlineNpm(cache))]);
        return { lib: path.basename(lib!), cli: path.basename(cli!) };
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }),
  );
  return { lib: path.join(entry.dir, entry.meta.lib), cli: path.join(entry.dir, entry.meta.cli) };
}

/** `npm pack` of a workspace package into dest (its prepack hook builds first); the tarball's path. Call it inside {@link packing}. */
export async function npmPack(pkgDir: string, dest: string, env: NodeJS.ProcessEnv): Promise<string> {
  mkdirSync(dest, { recursive: true });
  const r = await run('npm', ['pack', '--pack-destination', dest, '--json'], pkgDir, env);
  expect(r.code, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string }[];
  return path.join(dest, (info as { filename: string }).filename);
}

export type RegistryPackages = Map<string, Map<string, { manifest: Record<string, unknown>; file: string }>>;

/** The manifest fields npm reads from a packument version (what the real registry serves). */
const MANIFEST_FIELDS = ['name', 'version', 'dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'os', 'cpu', 'engines', 'libc'];

/**
 * A read-only npm registry on 127.0.0.1 for the given tarballs: GET /<name> answers the
 * packument (every version with its manifest and dist), GET /-/<file> the tarball. Unknown
 * names are 404, as on npmjs.org for an optional dependency of another platform.
 */
export async function serveRegistry(packages: RegistryPackages): Promise<{ url: string; close: () => Promise<void> }> {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The published dependency closure of the library, as installed in this workspace: name@version -> folder. */
export function dependencyClosure(): Map<string, { name: string; dir: string }> {
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

/** The closure as registry tarballs under depsDir (the files pnpm extracted put back into a package tarball, hard links resolved). */
export async function closureTarballs(depsDir: string): Promise<RegistryPackages> {
  mkdirSync(depsDir, { recursive: true });
  const packages: RegistryPackages = new Map();
  for (const [key, { name, dir }] of dependencyClosure()) {
    const file = path.join(depsDir, `${key.replace(/[@/]/g, '_')}.tgz`);
    // Hard links dereferenced: pnpm's store links identical files, and npm does not extract link entries.
    // gzip's fastest level: the registry is on 127.0.0.1, and the ffmpeg and libvips binaries take most of the time at the default.
    const r = await run('tar', ['-I', 'gzip -1', '-cf', file, '--hard-dereference', '--transform', 's,^\\.,package,', '-C', dir, '.'], depsDir);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string };
    if (!packages.has(name)) packages.set(name, new Map());
    packages.get(name)!.set(manifest.version, { manifest, file });
  }
  return packages;
}

/**
 * {@link closureTarballs} as a shared entry: the registry's content is the same for every file that
 * serves one (pack.test.ts, ci-recipe.test.ts), so it is made once per test run. Read-only.
 */
export async function sharedClosureTarballs(): Promise<RegistryPackages> {
  const closure = [...dependencyClosure()].map(([key, { dir }]) => [key, dir]);
  type Tarball = { name: string; version: string; manifest: Record<string, unknown>; file: string };
  const entry = await betweenPacks(() =>
    shared('closure-tarballs', closure, async (dir): Promise<Tarball[]> => {
      const packages = await closureTarballs(dir);
      return [...packages].flatMap(([name, versions]) => [...versions].map(([version, { manifest, file }]) => ({ name, version, manifest, file: path.basename(file) })));
    }),
  );
  const packages: RegistryPackages = new Map();
  for (const { name, version, manifest, file } of entry.meta) {
    if (!packages.has(name)) packages.set(name, new Map());
    packages.get(name)!.set(version, { manifest, file: path.join(entry.dir, file) });
  }
  return packages;
}
