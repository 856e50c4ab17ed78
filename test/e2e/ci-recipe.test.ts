/**
 * docs/ci.md's recipes, tested as far as they run here: both YAML blocks parse; every fidelity
 * command they run exists and takes every option given (the CLI's own --help says so); and the
 * compare step of each runs on the committed fixtures, zipped where `fidelity fetch` would have
 * put them, with what the recipe promises checked: exit codes, the JUnit file against the
 * schema, the appended summary, and the files the artifact upload names. `fetch` itself needs
 * GitHub (it is tested against a local server in packages/cli/test/fetch-command.test.ts), and
 * `--require-provider` is dropped when running: the fixtures have no provider record.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HAVE_XMLLINT, validate } from '../../packages/fidelity/test/ci/xmllint.js';
import { BIN, cli, FIXTURES, ROOT, zipRun } from './helpers.js';

const doc = readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as Record<string, unknown>);
type Step = { name?: string; id?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, string> };
const github = blocks.find((b) => 'jobs' in b) as { on: { workflow_dispatch: unknown }; jobs: Record<string, { steps: Step[] }> };
const gitlab = blocks.find((b) => 'fidelity' in b) as { fidelity: { script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } } };
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

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-e2e-recipe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The runs as `fetch --out runs/baseline` and `--out runs/candidate` leave them: one zip per folder. */
async function workspace(name: string): Promise<string> {
  const dir = path.join(tmp, name);
  mkdirSync(path.join(dir, 'runs', 'baseline'), { recursive: true });
  mkdirSync(path.join(dir, 'runs', 'candidate'), { recursive: true });
  await zipRun(path.join(FIXTURES, 'h200'), path.join(dir, 'runs', 'baseline', 'h3-video-30054883436-1.zip'), 'h3-video-30054883436-1');
  await zipRun(path.join(FIXTURES, 'b200'), path.join(dir, 'runs', 'candidate', 'h3-video-30061277519-2.zip'), 'h3-video-30061277519-2');
  return dir;
}

/** A recipe's shell script as the CI runner runs it (bash -eo pipefail), with `npx fidelity` this clone's CLI. */
function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const prelude = 'npx() { if [ "$1" = fidelity ]; then shift; node "$FIDELITY_BIN" "$@"; else echo "the recipe runs npx $1" >&2; return 127; fi; }\n';
  const { GITHUB_STEP_SUMMARY: _s, GITHUB_OUTPUT: _o, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', prelude + script.replace(/ --require-provider/g, '')], { cwd, env: { ...inherited, FIDELITY_BIN: BIN, ...env }, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('docs/ci.md: the recipes name real commands and options', () => {
  it('has a GitHub Actions workflow and a GitLab CI job', () => {
    expect(blocks).toHaveLength(2);
    expect(github.on.workflow_dispatch).toBeDefined();
    expect(steps.map((s) => s.name ?? s.uses)).toEqual(['actions/setup-node@v4', 'Install fidelity', "Fetch both runs' artifacts", 'Compare', 'Upload the bundle', 'Thresholds']);
    expect(gitlab.fidelity.artifacts.reports.junit).toBe('fidelity-junit.xml');
    expect(gitlab.fidelity.artifacts.when).toBe('always');
  });

  it('every fidelity command exists and takes every option the recipes give it', async () => {
    const commands = [...steps.flatMap((s) => fidelityCommands(s.run ?? '')), ...gitlab.fidelity.script.flatMap(fidelityCommands)];
    expect(commands.map((c) => c[0])).toEqual(['fetch', 'fetch', 'compare', 'fetch', 'fetch', 'compare']);
    for (const words of commands) {
      const help = await cli([words[0]!, '--help']);
      expect(help.code, words.join(' ')).toBe(0);
      for (const option of words.filter((w) => w.startsWith('--'))) expect(help.stdout, `${words[0]} ${option}`).toMatch(new RegExp(`\\n {2,}(-[a-z], )?${option}( |\\n)`));
    }
  });
});

describe('docs/ci.md: the GitHub Actions compare step, run', () => {
  let dir: string;
  let compare: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    dir = await workspace('github');
    writeFileSync(path.join(dir, 'summary.md'), '');
    writeFileSync(path.join(dir, 'output'), '');
    compare = await bash(step('Compare').run!, dir, { GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'), GITHUB_OUTPUT: path.join(dir, 'output') });
  });

  it('succeeds with exit 4 recorded (B200 fails checks), the summary appended without any option', () => {
    expect(compare.code, compare.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'output'), 'utf8')).toBe('exit=4\n');
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

  it('then the Thresholds step runs (its condition holds) and fails the job', async () => {
    expect(step('Thresholds').if).toBe("${{ steps.compare.outputs.exit == '4' }}");
    const r = await bash(step('Thresholds').run!, dir);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('::error::a pair failed a threshold check');
  });
});

describe('docs/ci.md: the GitLab CI compare line, run', () => {
  it('exits 4 and leaves the artifacts and the JUnit report it names', async () => {
    const dir = await workspace('gitlab');
    const line = gitlab.fidelity.script.find((l) => l.startsWith('npx fidelity compare'))!;
    const r = await bash(line, dir);
    expect(r.code, r.stderr).toBe(4);
    for (const p of gitlab.fidelity.artifacts.paths) expect(existsSync(path.join(dir, p)), p).toBe(true);
    expect(readFileSync(path.join(dir, 'fidelity-summary.md'), 'utf8')).toMatch(/^\n## fidelity: `H200 run 30054883436-1` against 1 candidate\n/);
    if (!HAVE_XMLLINT) return console.warn('SKIPPED: xmllint schema check (no xmllint)');
    const v = validate(path.join(dir, gitlab.fidelity.artifacts.reports.junit));
    expect(v.ok, v.output).toBe(true);
  });
});
