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
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from './helpers.js';
import { CLI, dependencyClosure, LIB, npmPack, offlineNpm, packedPackages, packing, run, serveRegistry, sharedClosureTarballs } from './packages.js';

// Nothing may come from the network: an empty cache, and (until the test's own registry is up) a registry that does not answer.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-pack-'));
const offline = offlineNpm(tmp);
let registry: { url: string; close: () => Promise<void> } | undefined;
afterAll(async () => {
  await registry?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const PNPM_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }).packageManager.replace(/^pnpm@/, '');
const version = (JSON.parse(readFileSync(path.join(LIB, 'package.json'), 'utf8')) as { version: string }).version;

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

/**
 * A user's TypeScript over the public API, every entry (`media-fidelity`, `/base`, `/verify`): the
 * options of each kind, the outcomes narrowed, and a wrong call that must not compile (the types
 * are real, not `any`).
 */
const CONSUMER = `import { compare, createMeasurePool, diffReports, generateRuns, isFidelityError, measurePair, Report, type CompareOptions, type MeasureOptions, type PoolOptions } from 'media-fidelity';
import { METRIC_SETS, TOOL_VERSION } from 'media-fidelity/base';
import { resolveFfmpeg, verifyRun } from 'media-fidelity/verify';

const controller = new AbortController();
const measureOptions: MeasureOptions = { signal: controller.signal, timeoutMs: 60_000, metrics: 'ffmpeg', onProgress: (p) => console.log(p.framesDone, p.framesTotal) };
const poolOptions: PoolOptions = { threads: 2, ffmpeg: { env: process.env }, metrics: ['ssim', 'psnr_y'] };
const options: CompareOptions = {
  out: 'bundle',
  force: false,
  signal: controller.signal,
  ffmpeg: { ffmpegPath: '/usr/bin/ffmpeg' },
  onProgress: (e) => {
    if (e.stage === 'measure') console.log(e.pairsDone, e.pairsTotal);
  },
};

export async function main(): Promise<number> {
  const toolchain = await resolveFfmpeg({});
  console.log(TOOL_VERSION, METRIC_SETS.default[0], toolchain.ffmpeg.path);
  const checked = await verifyRun('runs/h200.zip', { requireDigest: true, signal: controller.signal });
  if (!checked.ok) for (const p of checked.problems) console.error(p.code, p.message, p.where);
  else await checked.run.close();
  const outcome = await measurePair('a.mp4', 'b.mp4', measureOptions);
  if (outcome.ok) console.log(outcome.measurement.video.ssim?.min);
  else console.log(outcome.failure.code);
  const pool = createMeasurePool(poolOptions);
  const pooled = await pool.measure({ id: 'x', baseline: 'a.mp4', candidate: 'b.mp4' }, { signal: controller.signal });
  await pool.destroy();
  console.log(pooled.ok);
  await generateRuns({ outDir: 'runs' });
  const result = await compare('runs/h200', ['runs/b200.zip'], options);
  const bundle = await compare('runs/h200', ['runs/b200.zip'], { out: 'bundle' });
  const first = bundle.report.comparisons[0];
  console.log(first?.candidate_gpu_model, 'report' in result);
  const partial = await compare('runs/h200', ['runs/b200.zip'], { out: 'partials/0', shard: { index: 0, count: 2 } });
  console.log(partial.shard.count);
  const diff = await diffReports('old', bundle.report);
  console.log(diff.changes.length, Report.safeParse({}).success);
  try {
    // @ts-expect-error out is required
    await compare('runs/h200', [], {});
  } catch (error) {
    if (isFidelityError(error)) return error.code === 'INVALID_ARGUMENT' ? 2 : 1;
  }
  return 0;
}
`;

/** The installed `fidelity` bin (node_modules/.bin, as npx runs it), run in the project. */
const fidelity = (args: string[]) => run(process.execPath, [path.join(project, 'node_modules', '.bin', 'fidelity'), ...args], project, offline);

/** A build output whose source does not exist. */
const STALE = 'zz-deleted-module.js';

let libTarball: string;
let cliTarball: string;
let project: string;
let after: { stale: boolean; manifest: string; backup: boolean };

describe('the packed packages', () => {
  beforeAll(async () => {
    // What a build leaves behind after a module is renamed or deleted (tsc -b never removes an output).
    await packing(async () => {
      writeFileSync(path.join(LIB, 'dist', STALE), 'export {};\n');
      libTarball = await npmPack(LIB, path.join(tmp, 'npm'), offline);
      cliTarball = await npmPack(CLI, path.join(tmp, 'npm'), offline);
      // The workspace as the packs left it, read before another file's pack may start.
      after = { stale: existsSync(path.join(LIB, 'dist', STALE)), manifest: readFileSync(path.join(CLI, 'package.json'), 'utf8'), backup: existsSync(path.join(CLI, 'package.json.prepack')) };
    });
    // This file tests packing, so it always packs for itself; its tarballs then serve the run's other
    // installs (ci-recipe.test.ts), unless that file packed first.
    await packedPackages({ lib: libTarball, cli: cliTarball });
  });

  it('npm pack builds first and gives clean, self-describing tarballs with real dependency versions', async () => {
    const lib = await unpack(libTarball);
    checkTarball(lib, ['dist/index.js', 'dist/index.d.ts', 'dist/pool/worker.js', 'assets/metrics-kernels.wasm', 'src/index.ts']);
    // The output of a source that no longer exists is pruned before packing, not shipped.
    expect(existsSync(path.join(lib, 'dist', STALE))).toBe(false);
    expect(after.stale).toBe(false);
    const cli = await unpack(cliTarball);
    checkTarball(cli, ['bin/fidelity.js', 'dist/main.js']);
    const cliPkg = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(cliPkg.dependencies['media-fidelity']).toBe(version);
    expect(cliPkg.bin).toEqual({ fidelity: './bin/fidelity.js' });
    // The workspace manifest is back as it was: the rewrite lives only inside the tarball.
    expect(after.manifest).toMatch(/"media-fidelity": "workspace:\*"/);
    expect(after.backup).toBe(false);
  });

  it('pnpm pack gives the same files and the same dependency ranges', async () => {
    const dest = path.join(tmp, 'pnpm');
    mkdirSync(dest);
    // The pinned pnpm: on PATH when installed that way, else the copy `npm run setup` put in npx's cache.
    const onPath = await run('pnpm', ['--version'], ROOT);
    const pnpm = onPath.code === 0 && onPath.stdout.trim() === PNPM_VERSION ? ['pnpm'] : ['npx', '--offline', '-y', `pnpm@${PNPM_VERSION}`];
    for (const [dir, npmTarball] of [[LIB, libTarball], [CLI, cliTarball]] as const) {
      const r = await packing(() => run(pnpm[0] as string, [...pnpm.slice(1), 'pack', '--pack-destination', dest], dir, { npm_config_update_notifier: 'false' }));
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
    mkdirSync(project);
    expect(path.relative(ROOT, project).startsWith('..')).toBe(true);
    // The run's shared registry content (ci-recipe.test.ts serves the same).
    const packages = await sharedClosureTarballs();
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['zod', 'sharp', 'piscina', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe']));
    registry = await serveRegistry(packages);
    offline.npm_config_registry = registry.url;
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

    // npx finds the installed bin (above); the other commands run that bin directly, without npx's own start.
    const doctor = await fidelity(['doctor', '--json']);
    expect(doctor.code, doctor.stderr).toBe(0);
    const doc = JSON.parse(doctor.stdout) as { ffmpeg: { source: string; path: string }; ffprobe: { source: string; path: string } };
    expect(doc.ffmpeg.source).toBe(doc.ffprobe.source);
    if (doc.ffmpeg.source === 'installer') expect(doc.ffmpeg.path.startsWith(project)).toBe(true);
    // npm warns that the npm ffmpeg packages' install scripts (a `chmod u+x` of the binary) are not covered
    // by allowScripts: the binaries come executable in their tarballs and run whether the script ran or not.
    for (const pkg of ['@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe']) {
      const where = await run(process.execPath, ['-p', `require(${JSON.stringify(pkg)}).path`], project);
      expect(where.code, where.stderr).toBe(0);
      const binary = where.stdout.trim();
      expect(binary.startsWith(project), binary).toBe(true);
      const v = await run(binary, ['-hide_banner', '-version'], project);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout).toMatch(/^ff(mpeg|probe) version /);
    }
  }, 600_000);

  it('its types compile in a strict consumer (exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck false)', async () => {
    // A user's TypeScript ESM file beside the installed tarballs; @types/node as the user installs it (the workspace's copy).
    mkdirSync(path.join(project, 'node_modules', '@types'), { recursive: true });
    symlinkSync(realpathSync(path.join(ROOT, 'node_modules', '@types', 'node')), path.join(project, 'node_modules', '@types', 'node'), 'dir');
    writeFileSync(path.join(project, 'consumer.mts'), CONSUMER);
    const compilerOptions = { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'] };
    writeFileSync(path.join(project, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, files: ['consumer.mts'] }, null, 2)}\n`);
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await run(process.execPath, [tsc, '-p', '.', '--listFiles'], project);
    expect(r.code, r.stdout.split('\n').filter((l) => !l.startsWith('/')).join('\n')).toBe(0);
    // The declarations reached from the library's entries name no third-party package but zod, whose schemas are the types.
    const packages = new Set(
      r.stdout.split('\n').flatMap((file) => {
        const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.slice(file.lastIndexOf('/node_modules/')));
        return m ? [m[1]!] : [];
      }),
    );
    expect([...packages].sort()).toEqual(['@types/node', 'media-fidelity', 'typescript', 'undici-types', 'zod']);
  }, 300_000);

  it("runs the README's library example on what `fidelity generate` writes", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## As a library'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toMatch(/from 'media-fidelity'/);
    // What the example reads (runs/h200, runs/h200.zip, runs/b200.zip, runs/h100.tar.gz): each format
    // for those sites only, and two plan cases: what is checked (the example runs, prints a line per
    // candidate, and its bundle verifies) does not depend on the number of pairs.
    for (const [format, sites] of [['dir', 'H200'], ['zip', 'H200,B200'], ['tar.gz', 'H100']] as const) {
      const g = await fidelity(['generate', '--out', 'runs', '--format', format, '--sites', sites, '--cases', '2']);
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
    const check = await fidelity(['verify-bundle', 'bundle']);
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
