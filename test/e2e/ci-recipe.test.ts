/**
 * docs/ci.md's recipes, run as written from the install step on: both YAML blocks parse; every
 * fidelity command they run exists and takes every option given (the CLI's own --help says so);
 * the two tarballs are packed from this clone into tools/fidelity/ of an empty workspace, where
 * the recipe's own install line installs them with plain npm (dependencies from a registry this
 * test serves on 127.0.0.1: no network) and prints no EBADENGINE; then each recipe's compare step
 * runs with that install's `npx fidelity` on the committed fixtures, zipped where `fidelity fetch`
 * would have put them, and what the recipe promises is checked: exit codes (the gate's 4 on the
 * fixtures, 5 for a candidate whose every request failed), the JUnit file against the schema, the
 * appended summary, and the files the artifact upload names. `fetch` itself needs GitHub (it is
 * tested against a local server in packages/cli/test/fetch-command.test.ts), and
 * `--require-provider` is dropped when running: the fixtures have no provider record.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HAVE_XMLLINT, validate } from '../../packages/fidelity/test/ci/xmllint.js';
import { cli, FIXTURES, ROOT, reseal, zipRun } from './helpers.js';
import { LIB, offlineNpm, packedPackages, serveRegistry, sharedClosureTarballs } from './packages.js';

const doc = readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as Record<string, unknown>);
type Step = { name?: string; id?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, string> };
const github = blocks.find((b) => 'jobs' in b) as { on: { workflow_dispatch: unknown }; env: Record<string, string>; jobs: Record<string, { steps: Step[] }> };
const gitlab = blocks.find((b) => 'fidelity' in b) as { fidelity: { variables: Record<string, string>; script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } } };
const steps = Object.values(github.jobs)[0]!.steps;
const step = (name: string) => steps.find((s) => s.name === name)!;

/** Each `npx fidelity ...` command of a shell script, continuation lines joined, as words (quotes removed). */
function fidelityCommands(script: string): string[][] {
  return script
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => /^\s*npx fidelity /.test(l))
    .map((l) => [...l.trim().matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(2));
}

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'fidelity-e2e-recipe-')));
// npm never reaches the network: its own empty cache, and the registry served below.
const npm = offlineNpm(tmp);
let registry: { url: string; close: () => Promise<void> } | undefined;
let tarballs: string[] = [];
afterAll(async () => {
  await registry?.close();
  rmSync(tmp, { recursive: true, force: true });
});

beforeAll(async () => {
  // This file installs the tarballs and does not test packing (pack.test.ts does): the run's shared
  // pack of this clone, and the run's shared registry content.
  const packed = await packedPackages();
  tarballs = [packed.lib, packed.cli];
  registry = await serveRegistry(await sharedClosureTarballs());
  npm.npm_config_registry = registry.url;
}, 600_000);

/** B200 with every measurement request failed ("CUDA out of memory", no media); the warm-up stays ok. */
function allRequestsFailed(dir: string): void {
  cpSync(path.join(FIXTURES, 'b200'), dir, { recursive: true });
  const file = path.join(dir, 'run.json');
  const run = JSON.parse(readFileSync(file, 'utf8')) as { records: Record<string, unknown>[] };
  for (const r of run.records) {
    if (r.kind !== 'measurement') continue;
    if (typeof r.media === 'string') unlinkSync(path.join(dir, r.media));
    Object.assign(r, { status: 'failed', error: 'CUDA out of memory', media: null, latency_s: null });
    delete r.window;
    delete r.server_timing;
  }
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(path.join(dir, 'telemetry', 'server_timing.jsonl'), '');
  reseal(dir);
}

/** The runs as `fetch --out runs/baseline` and `--out runs/candidate` leave them (one zip per folder), and the tarballs where the recipes install them from. */
async function workspace(name: string, candidate = path.join(FIXTURES, 'b200')): Promise<string> {
  const dir = path.join(tmp, name);
  mkdirSync(path.join(dir, 'runs', 'baseline'), { recursive: true });
  mkdirSync(path.join(dir, 'runs', 'candidate'), { recursive: true });
  mkdirSync(path.join(dir, 'tools', 'fidelity'), { recursive: true });
  for (const t of tarballs) copyFileSync(t, path.join(dir, 'tools', 'fidelity', path.basename(t)));
  await zipRun(path.join(FIXTURES, 'h200'), path.join(dir, 'runs', 'baseline', 'h3-video-30054883436-1.zip'), 'h3-video-30054883436-1');
  await zipRun(candidate, path.join(dir, 'runs', 'candidate', 'h3-video-30061277519-2.zip'), 'h3-video-30061277519-2');
  return dir;
}

/** A recipe's shell script as the CI runner runs it (bash -eo pipefail): `npx fidelity` is what its install step installed. */
function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { GITHUB_STEP_SUMMARY: _s, GITHUB_OUTPUT: _o, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script.replace(/ --require-provider/g, '')], { cwd, env: { ...inherited, ...npm, ...env }, maxBuffer: 64 << 20, timeout: 600_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Workspaces installed so far, by install line and FIDELITY_PACKAGES: the first that ran each. */
const installed = new Map<string, string>();

/**
 * The install step, as written: the packages land in the workspace's node_modules, with no engine
 * warning. The same line (and FIDELITY_PACKAGES) in a later workspace gets a copy of the first
 * one's node_modules instead (the GitLab job's install line is the GitHub step's, as the first test
 * checks): npm would install the same tarballs from the same registry again.
 */
async function install(dir: string, script: string, env: Record<string, string>): Promise<void> {
  const key = JSON.stringify([script.trim(), env.FIDELITY_PACKAGES]);
  const first = installed.get(key);
  if (first) {
    // Links as they are (.bin's are relative), not re-pointed into the first workspace.
    cpSync(path.join(first, 'node_modules'), path.join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  } else {
    const r = await bash(script, dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/EBADENGINE/);
    installed.set(key, dir);
  }
  expect(realpathSync(path.join(dir, 'node_modules', '.bin', 'fidelity')).startsWith(path.join(dir, 'node_modules'))).toBe(true);
}

/** A GitHub expression (`${{ ... }}`) with the compare step's output in place: what the runner would substitute. */
function expression(text: string, exit: string): string {
  return text.replace(/\$\{\{\s*steps\.compare\.outputs\.exit\s*\}\}/g, exit);
}

/** The Gate step's `if`, evaluated for an exit code: it is a disjunction of `steps.compare.outputs.exit == 'N'`. */
function gateRuns(exit: string): boolean {
  const condition = step('Gate').if!.replace(/^\$\{\{\s*|\s*\}\}$/g, '');
  const alternatives = condition.split('||').map((a) => /^\s*steps\.compare\.outputs\.exit == '(\d+)'\s*$/.exec(a)?.[1]);
  expect(alternatives.every((a) => a !== undefined), condition).toBe(true);
  return alternatives.includes(exit);
}

describe('docs/ci.md: the recipes name real commands and options', () => {
  it('has a GitHub Actions workflow and a GitLab CI job', () => {
    expect(blocks).toHaveLength(2);
    expect(github.on.workflow_dispatch).toBeDefined();
    expect(steps.map((s) => s.name ?? s.uses)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4', 'Install fidelity', "Fetch both runs' artifacts", 'Compare', 'Upload the bundle', 'Gate']);
    // The checkout brings the tarballs the install step names, and nothing installs from the npm registry by name.
    expect(steps[0]!.with).toEqual({ 'sparse-checkout': github.env.FIDELITY_PACKAGES });
    expect(step('Install fidelity').run).toMatch(/^npm install --no-save --no-package-lock "\$FIDELITY_PACKAGES\/media-fidelity-[\d.]+\.tgz" "\$FIDELITY_PACKAGES\/media-fidelity-cli-[\d.]+\.tgz"\n?$/);
    expect(gitlab.fidelity.script[0]).toBe(step('Install fidelity').run!.trim());
    expect(gitlab.fidelity.variables.FIDELITY_PACKAGES).toBe(github.env.FIDELITY_PACKAGES);
    expect(gitlab.fidelity.artifacts.reports.junit).toBe('fidelity-junit.xml');
    expect(gitlab.fidelity.artifacts.when).toBe('always');
  });

  it('every fidelity command exists and takes every option the recipes give it', async () => {
    const commands = [...steps.flatMap((s) => fidelityCommands(s.run ?? '')), ...gitlab.fidelity.script.flatMap(fidelityCommands)];
    expect(commands.map((c) => c[0])).toEqual(['fetch', 'fetch', 'compare', 'fetch', 'fetch', 'compare']);
    // Each command's --help once: every line that runs it is checked against the same text.
    const helps = new Map<string, Promise<{ code: number; stdout: string }>>();
    for (const words of commands) {
      if (!helps.has(words[0]!)) helps.set(words[0]!, cli([words[0]!, '--help']));
      const help = await helps.get(words[0]!)!;
      expect(help.code, words.join(' ')).toBe(0);
      for (const option of words.filter((w) => w.startsWith('--'))) expect(help.stdout, `${words[0]} ${option}`).toMatch(new RegExp(`\\n {2,}(-[a-z], )?${option}( |\\n)`));
    }
  });
});

describe('docs/ci.md: the GitHub Actions workflow, run from its install step', () => {
  let dir: string;
  let compare: { code: number; stdout: string; stderr: string };
  const outputs = () => readFileSync(path.join(dir, 'output'), 'utf8');
  beforeAll(async () => {
    dir = await workspace('github');
    await install(dir, step('Install fidelity').run!, github.env);
    writeFileSync(path.join(dir, 'summary.md'), '');
    writeFileSync(path.join(dir, 'output'), '');
    compare = await bash(step('Compare').run!, dir, { ...github.env, GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'), GITHUB_OUTPUT: path.join(dir, 'output') });
  }, 600_000);

  it('the installed CLI is the one packed from this clone', async () => {
    const version = (JSON.parse(readFileSync(path.join(LIB, 'package.json'), 'utf8')) as { version: string }).version;
    const r = await bash('npx fidelity --version', dir);
    expect(r.stdout.trim()).toBe(version);
    for (const t of tarballs) expect(step('Install fidelity').run).toContain(path.basename(t));
  });

  it('the Compare step succeeds with exit 4 recorded (B200 fails checks), the summary appended without any option', () => {
    expect(compare.code, compare.stderr).toBe(0);
    expect(outputs()).toBe('exit=4\n');
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain('| `B200` | 30061277519-2 | 10 | 7 | 4 | 3 | 3 | not calibrated |');
  });

  it('leaves what the upload step names: the bundle, intact, and the JUnit file, valid', async () => {
    const upload = step('Upload the bundle');
    expect(upload.uses).toBe('actions/upload-artifact@v4');
    const paths = String(upload.with!.path).trim().split('\n');
    expect(paths).toEqual(['bundle', 'fidelity-junit.xml']);
    for (const p of paths) expect(existsSync(path.join(dir, p)), p).toBe(true);
    expect((await cli(['verify-bundle', path.join(dir, 'bundle')])).code).toBe(0);
    if (!HAVE_XMLLINT) return console.warn('SKIPPED: xmllint schema check (no xmllint)');
    const v = validate(path.join(dir, 'fidelity-junit.xml'));
    expect(v.ok, v.output).toBe(true);
  });

  it('then the Gate step runs (its condition holds) and fails the job with 4', async () => {
    expect(gateRuns('4')).toBe(true);
    expect(gateRuns('0')).toBe(false);
    const gate = step('Gate');
    const env = Object.fromEntries(Object.entries(gate.env ?? {}).map(([k, v]) => [k, expression(v, '4')]));
    const r = await bash(gate.run!, dir, env);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('::error::a pair failed a threshold check');
  });

  it('a candidate whose every request failed: the Compare step records 5, the bundle is uploaded, and the Gate step fails the job', async () => {
    const oom = path.join(tmp, 'b200-oom');
    allRequestsFailed(oom);
    rmSync(path.join(dir, 'runs', 'candidate'), { recursive: true });
    mkdirSync(path.join(dir, 'runs', 'candidate'));
    await zipRun(oom, path.join(dir, 'runs', 'candidate', 'h3-video-30061277519-2.zip'), 'h3-video-30061277519-2');
    writeFileSync(path.join(dir, 'output'), '');
    const r = await bash(step('Compare').run!, dir, { ...github.env, GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'), GITHUB_OUTPUT: path.join(dir, 'output') });
    expect(r.code, r.stderr).toBe(0);
    expect(outputs()).toBe('exit=5\n');
    expect(r.stdout).toMatch(/^Gate: exit 5 GATE_INVALID_PAIRS: /m);
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain('| `B200` | 30061277519-2 | 10 | 0 | 0 | 0 | 10 | not calibrated |');
    expect((await cli(['verify-bundle', path.join(dir, 'bundle')])).code).toBe(0);
    if (HAVE_XMLLINT) {
      const v = validate(path.join(dir, 'fidelity-junit.xml'));
      expect(v.ok, v.output).toBe(true);
    }
    // Every invalid pair is an <error> of the JUnit file.
    expect(readFileSync(path.join(dir, 'fidelity-junit.xml'), 'utf8')).toMatch(/<testsuite [^>]*tests="10" failures="0" errors="10"/);
    expect(gateRuns('5')).toBe(true);
    const gate = step('Gate');
    const env = Object.fromEntries(Object.entries(gate.env ?? {}).map(([k, v]) => [k, expression(v, '5')]));
    const g = await bash(gate.run!, dir, env);
    expect(g.code).toBe(5);
    expect(g.stdout).toContain('::error::no pair failed a check, but planned pairs are invalid');
  });
});

describe('docs/ci.md: the GitLab CI job, run from its install line', () => {
  it('installs, then the compare line exits 4 and leaves the artifacts and the JUnit report it names', async () => {
    const dir = await workspace('gitlab');
    // The GitHub step's install line and packages folder: install() copies that workspace's node_modules.
    expect(gitlab.fidelity.script[0]).toBe(step('Install fidelity').run!.trim());
    expect(gitlab.fidelity.variables.FIDELITY_PACKAGES).toBe(github.env.FIDELITY_PACKAGES);
    await install(dir, gitlab.fidelity.script[0]!, gitlab.fidelity.variables);
    const line = gitlab.fidelity.script.find((l) => l.startsWith('npx fidelity compare'))!;
    const r = await bash(line, dir, gitlab.fidelity.variables);
    expect(r.code, r.stderr).toBe(4);
    for (const p of gitlab.fidelity.artifacts.paths) expect(existsSync(path.join(dir, p)), p).toBe(true);
    expect(readFileSync(path.join(dir, 'fidelity-summary.md'), 'utf8')).toMatch(/^\n## fidelity: `H200 run 30054883436-1` against 1 candidate\n/);
    if (!HAVE_XMLLINT) return console.warn('SKIPPED: xmllint schema check (no xmllint)');
    const v = validate(path.join(dir, gitlab.fidelity.artifacts.reports.junit));
    expect(v.ok, v.output).toBe(true);
  }, 600_000);
});
