/**
 * Every command's option table is the one source of its parser and its help:
 * walks every command's declared options (each is in the help and accepted) and
 * every option another command declares that this one does not (each refused,
 * exit 2 USAGE, before anything runs).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../src/commands/index.js';
import { main, parseCommandLine } from '../src/main.js';
import { commandHelp, optionsOf, usageLine } from '../src/options.js';
import type { Command, OptionSpec } from '../src/commands/types.js';
import { capture } from './capture.js';
import { closestName } from '../src/suggest.js';

/** `--name` as a whole word: `--policy` must not be found inside `--policy-out`. */
const mentions = (text: string, flag: string): boolean => new RegExp(`(^|[\\s,\\[(|])${flag.replace(/[-]/g, '\\-')}(?=[\\s,\\])|]|$)`, 'm').test(text);

/** Arguments that give the option once, in its long or short form. */
const give = (flag: string, spec: OptionSpec): string[] => (spec.type === 'string' ? [flag, '2'] : [flag]);

async function helpOf(c: Command): Promise<string> {
  const io = capture();
  expect(await main([c.name, '--help'], io)).toBe(0);
  return io.stdout();
}

describe('per-command options', () => {
  it.each(commands.map((c) => [c.name, c] as const))('%s: every declared option is in its help and accepted', async (_name, c) => {
    const help = await helpOf(c);
    expect(help).toBe(commandHelp(c));
    for (const [name, spec] of Object.entries(optionsOf(c))) {
      expect(mentions(help, `--${name}`), `--${name} in the help of ${c.name}`).toBe(true);
      // Wrapped to the help's width: the description's words, in order, across its lines.
      expect(help.replace(/\s+/g, ' ')).toContain(spec.description);
      const parsed = parseCommandLine(c, ['x', ...give(`--${name}`, spec)]);
      expect(parsed.values[name], `--${name} accepted by ${c.name}`).toEqual(spec.multiple ? ['2'] : spec.type === 'string' ? '2' : true);
      if (spec.short) {
        expect(mentions(help, `-${spec.short}`), `-${spec.short} in the help of ${c.name}`).toBe(true);
        expect(parseCommandLine(c, give(`-${spec.short}`, spec)).values[name]).toBeDefined();
      }
    }
  });

  it('no help line is over 100 characters, nor over a narrower terminal\'s width but for a word longer than it', async () => {
    const helps = async (columns?: number): Promise<string[]> => {
      const texts: string[] = [];
      for (const args of [['--help'], ...commands.map((c) => [c.name, '--help'])]) {
        const io = { ...capture(), ...(columns === undefined ? {} : { columns }) };
        expect(await main(args, io)).toBe(0);
        texts.push(io.stdout());
      }
      return texts.flatMap((t) => t.split('\n'));
    };
    const lines = await helps();
    expect(lines.length).toBeGreaterThan(150);
    expect(lines.filter((l) => l.length > 100)).toEqual([]);
    // A wider terminal keeps 100; a narrower one wraps to its own width.
    expect((await helps(300)).filter((l) => l.length > 100)).toEqual([]);
    const narrow = await helps(60);
    // A line past 60 is one that a single word too long for the room left made so: without that word it fits.
    expect(narrow.filter((l) => l.length > 60 && l.replace(/ *\S+$/, '').length > 60)).toEqual([]);
    expect(Math.max(...narrow.map((l) => l.length))).toBeLessThan(Math.max(...lines.map((l) => l.length)));
  });

  const foreign = commands.flatMap((c) => {
    const own = optionsOf(c);
    const others = new Map<string, OptionSpec>();
    for (const o of commands) for (const [name, spec] of Object.entries(o.options)) if (!(name in own)) others.set(name, spec);
    return [...others].map(([name, spec]) => [c.name, name, spec] as const);
  });

  it('there are foreign options to refuse (the walk below is not empty)', () => {
    expect(foreign.length).toBeGreaterThan(50);
  });

  it.each(foreign)('%s refuses --%s (exit 2, USAGE), in JSON and in text', async (command, name, spec) => {
    const json = capture();
    expect(await main([command, ...give(`--${name}`, spec), '--json'], json)).toBe(2);
    const doc = JSON.parse(json.stdout()) as { ok: boolean; errors: { code: string; message: string }[] };
    expect(doc).toMatchObject({ ok: false, errors: [{ code: 'USAGE' }] });
    // A foreign option one letter from the command's own (merge --partial, compare --partials) is a likely typo: it gets a hint.
    const near = closestName(name, Object.keys(optionsOf(commands.find((c) => c.name === command)!)));
    expect(doc.errors[0]!.message).toBe(`fidelity ${command} does not take --${name}${near ? `; did you mean --${near}?` : ''} (fidelity ${command} --help lists the options it takes)`);
    const text = capture();
    expect(await main([command, ...give(`--${name}`, spec)], text)).toBe(2);
    expect(text.stderr()).toBe(`error USAGE: ${doc.errors[0]!.message}\n`);
  });

  it('names in a usage line only options the command declares', () => {
    for (const c of commands) {
      for (const flag of usageLine(c).match(/--[a-z][a-z-]*/g) ?? []) expect(optionsOf(c), `${flag} in ${c.name}'s usage`).toHaveProperty(flag.slice(2));
    }
  });

  it('takes --threads and --policy only where something is measured or judged, --progress only where the work is long', () => {
    const having = (option: string) => commands.filter((c) => option in c.options).map((c) => c.name).sort();
    // --threads and --policy at most on compare, merge, calibrate, demo. merge measures the pairs
    // it re-measures (--remeasure); calibrate judges nothing, so it refuses the --policy it would ignore.
    expect(having('threads')).toEqual(['calibrate', 'compare', 'demo', 'merge']);
    expect(having('policy')).toEqual(['compare', 'demo', 'merge']);
    expect(having('progress')).toEqual(['calibrate', 'compare', 'demo', 'fetch', 'generate', 'merge']);
    for (const c of commands) expect(optionsOf(c)).toHaveProperty('json');
  });

  it('refuses what it used to ignore: verify-bundle --policy, doctor --policy and --threads (exit 2, nothing run)', async () => {
    for (const args of [['verify-bundle', 'bundle', '--policy', '/nonexistent.json'], ['doctor', '--policy', '/nonexistent.json'], ['doctor', '--threads', '2'], ['verify', 'run', '--progress']]) {
      const io = capture();
      expect(await main(args, io), args.join(' ')).toBe(2);
      expect(io.stdout()).toBe('');
      expect(io.stderr()).toMatch(/^error USAGE: /);
    }
  });

  it('shows what the old hand-written usage lines left out: -o, calibrate --require-digest, demo --force', async () => {
    const byName = (n: string) => commands.find((c) => c.name === n)!;
    expect(await helpOf(byName('calibrate'))).toMatch(/--require-digest/);
    expect(await helpOf(byName('demo'))).toMatch(/--force/);
    for (const n of ['compare', 'merge', 'calibrate', 'demo', 'generate', 'fetch']) expect(await helpOf(byName(n))).toMatch(/^ {2}-o, --out /m);
  });

  it('demo takes --policy and reads it before generating anything (a bad file is refused at once, nothing written)', async () => {
    const out = path.join(os.tmpdir(), `fidelity-demo-policy-${process.pid}`);
    const io = capture();
    expect(await main(['demo', '--policy', path.join(out, 'missing-policy.json'), '--out', out, '--json'], io)).toBe(2);
    expect(JSON.parse(io.stdout())).toMatchObject({ ok: false, errors: [{ code: 'POLICY_INVALID' }] });
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a --threads value that is not a whole number from 1 to 256', () => {
    const compare = commands.find((c) => c.name === 'compare')!;
    for (const bad of ['0', '257', '1.5', '2x', '']) expect(() => parseCommandLine(compare, ['--threads', bad]), bad).toThrow(/--threads/);
    expect(parseCommandLine(compare, ['--threads', '4']).values.threads).toBe('4');
  });

  it.each(commands.map((c) => [c.name, c] as const))('%s: an option that takes one value given twice is a usage error (exit 2); a repeatable one and a flag may repeat', async (_name, c) => {
    for (const [name, spec] of Object.entries(optionsOf(c))) {
      const twice = [...give(`--${name}`, spec), ...(spec.short ? give(`-${spec.short}`, spec) : give(`--${name}`, spec))];
      if (spec.type === 'string' && !spec.multiple) {
        expect(() => parseCommandLine(c, ['x', ...twice]), `${c.name} --${name} twice`).toThrow(new RegExp(`--${name} is given twice`));
        const io = capture();
        // Before anything runs: the exit is the usage error's, with --json its document.
        expect(await main([c.name, ...twice, '--json'], io), `${c.name} --${name} twice`).toBe(2);
        expect(JSON.parse(io.stdout()), `${c.name} --${name} twice`).toMatchObject({ ok: false, errors: [{ code: 'USAGE', message: expect.stringContaining(`--${name} is given twice`) }] });
      } else {
        const parsed = parseCommandLine(c, ['x', ...twice]);
        expect(parsed.values[name], `${c.name} --${name} repeated`).toEqual(spec.multiple ? ['2', '2'] : true);
      }
    }
  });

  it('the cases of the report: --out A --out B, merge --remeasure all --remeasure 1, diff --tolerance twice', () => {
    const byName = (n: string) => commands.find((c) => c.name === n)!;
    expect(() => parseCommandLine(byName('compare'), ['a', 'b', '--out', 'A', '-o', 'B'])).toThrow('--out is given twice ("A" and "B")');
    expect(() => parseCommandLine(byName('compare'), ['a', 'b', '--junit', 'A', '--junit=B'])).toThrow('--junit is given twice');
    expect(() => parseCommandLine(byName('compare'), ['a', 'b', '--summary', 'A', '--summary', 'A'])).toThrow('--summary is given twice');
    expect(() => parseCommandLine(byName('merge'), ['a', 'b', '--remeasure', 'all', '--remeasure', '1'])).toThrow('--remeasure is given twice ("all" and "1")');
    expect(() => parseCommandLine(byName('diff'), ['a', 'b', '--tolerance', '0', '--tolerance', '1'])).toThrow('--tolerance is given twice');
    expect(parseCommandLine(byName('merge'), ['a', 'b', '--partials', 'p', '--partials', 'q']).values.partials).toEqual(['p', 'q']);
  });

  it('arguments after -- are operands: diff --bogus -- --json prints its usage error as text, not JSON', async () => {
    const io = capture();
    expect(await main(['diff', '--bogus', '--', '--json'], io)).toBe(2);
    expect(io.stdout()).toBe('');
    expect(io.stderr()).toMatch(/^error USAGE: fidelity diff does not take --bogus/);
    const json = capture();
    expect(await main(['diff', '--bogus', '--json', '--', 'x'], json)).toBe(2);
    expect(JSON.parse(json.stdout())).toMatchObject({ ok: false, errors: [{ code: 'USAGE' }] });
    // After --, --json is an operand: diff gets three sides, not a JSON request.
    const operand = capture();
    expect(await main(['diff', 'a', 'b', '--', '--json'], operand)).toBe(2);
    expect(operand.stdout()).toBe('');
    expect(operand.stderr()).toMatch(/^error USAGE: diff needs exactly two sides/);
  });

  it('lists the options every command takes in the top-level help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdout()).toContain('--json');
    expect(io.stdout()).not.toMatch(/--threads|--policy|--progress/);
    for (const c of commands) expect(io.stdout().replace(/\s+/g, ' ')).toContain(usageLine(c));
  });
});
