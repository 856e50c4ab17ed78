#!/usr/bin/env node
// The fixture reference report: fixtures/reference/report.json is report.json of
// `compare fixtures/runs/h200 fixtures/runs/b200 fixtures/runs/h100`, made with the pinned
// npm ffmpeg (FIDELITY_FFMPEG and PATH are ignored) and a fixed generated_at. The suite
// (test/e2e/reference.test.ts) runs `--check`, so any change of a measured value fails until the
// reference is regenerated on purpose, with a reason that goes into CHANGELOG.md.
//
//   npm run reference -- --check             fresh compare, diffed exactly against the reference:
//                                            exit 0 unchanged, 1 changed (the diff is printed)
//   npm run reference -- --reason "TEXT"     regenerate: refused without a reason when a value
//                                            changed; writes the reference and appends a line to
//                                            the "Unreleased" entry of CHANGELOG.md naming the
//                                            metrics that changed, the reason and the new sha256
//
// Uses the BUILT library (`npm run reference` builds first).
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compare, diffReports } from '../packages/fidelity/dist/index.js';
import { diffText } from '../packages/cli/dist/commands/diff-text.js';
import { outputWidth } from '../packages/cli/dist/io.js';

// Every change listed, wrapped to the terminal as `fidelity diff --all` prints it.
const DIFF_OPTIONS = { width: outputWidth({ columns: process.stdout.columns }), all: true };
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { check: { type: 'boolean' }, reason: { type: 'string' }, reference: { type: 'string' }, changelog: { type: 'string' } } });
// --reference / --changelog: other files than the repo's (the suite tests a regeneration on copies).
const REFERENCE = path.resolve(values.reference ?? path.join(root, 'fixtures', 'reference', 'report.json'));
const CHANGELOG = path.resolve(values.changelog ?? path.join(root, 'CHANGELOG.md'));
const RUNS = path.join(root, 'fixtures', 'runs');
/** 2025-12-01T00:00:00Z: the reference's generated_at, so regenerating with no change gives the same bytes. */
const GENERATED_AT = new Date(Date.UTC(2025, 11, 1));

if (Boolean(values.check) === (values.reason !== undefined)) {
  process.stderr.write('usage: reference-report.mjs --check | --reason "which metric changed and why"\n');
  process.exit(2);
}

const reason = (values.reason ?? '').trim().replace(/\s+/g, ' ').replace(/[.\s]+$/, '');
if (values.reason !== undefined && reason.length < 10) {
  process.stderr.write('--reason must say which metric changed and why (at least 10 characters)\n');
  process.exit(2);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-reference-'));
let code;
try {
  code = await run(path.join(tmp, 'bundle'));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);

async function run(bundle) {
  // env {}: the npm-pinned ffmpeg/ffprobe whatever the caller's FIDELITY_FFMPEG or PATH say.
  await compare(path.join(RUNS, 'h200'), [path.join(RUNS, 'b200'), path.join(RUNS, 'h100')], { out: bundle, generatedAt: GENERATED_AT, ffmpeg: { env: {} } });
  const diff = existsSync(REFERENCE) ? await diffReports(REFERENCE, bundle) : null;
  if (values.check) {
    if (!diff) {
      process.stderr.write(`no reference at ${path.relative(root, REFERENCE)}: make one with npm run reference -- --reason "..."\n`);
      return 2;
    }
    process.stdout.write(diffText(diff, DIFF_OPTIONS));
    if (!diff.unchanged) process.stdout.write('\nA measured value changed. If that is intended, regenerate with\n  npm run reference -- --reason "which metric changed and why"\n');
    return diff.unchanged ? 0 : 1;
  }
  const fresh = readFileSync(path.join(bundle, 'report.json'));
  if (diff?.unchanged && fresh.equals(readFileSync(REFERENCE))) {
    process.stdout.write(`Every measured value and every byte is unchanged: ${path.relative(root, REFERENCE)} stays as it is.\n`);
    return 0;
  }
  mkdirSync(path.dirname(REFERENCE), { recursive: true });
  copyFileSync(path.join(bundle, 'report.json'), REFERENCE);
  const sha = createHash('sha256').update(readFileSync(REFERENCE)).digest('hex');
  const name = path.relative(root, REFERENCE).split(path.sep).join('/');
  appendChangelog(`- Reference report \`${name}\` ${diff ? 'regenerated' : 'made'}, sha256 \`${sha}\`: ${reason}.${changedText(diff)}\n`);
  if (diff) process.stdout.write(diffText(diff, DIFF_OPTIONS));
  process.stdout.write(`\nWrote ${name} (sha256 ${sha}) and a line in ${path.relative(root, CHANGELOG)}. Commit both.\n`);
  return 0;
}

/** " Values that changed: `video.psnr_db` (17), ..." from the diff; empty for a first reference. */
function changedText(diff) {
  if (!diff) return '';
  // The report's layout can change (a new field) while every measured value stays: said so, never hidden.
  if (diff.unchanged) return ' No measured value changed: only fields that are not measurements did.';
  const counts = new Map();
  const add = (key) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const c of diff.changes) add(`${c.where.kind === 'run' ? 'runs[].' : c.where.kind === 'comparison' ? 'comparisons[].' : ''}${c.path.replace(/\[\d+\]$/, '')}`);
  for (const o of diff.metrics_only) add(`${o.path} (${o.side} only)`);
  const parts = [...counts].map(([k, n]) => `\`${k}\` (${n})`);
  const pairs = diff.pairs_only.length + diff.runs_only.length;
  return ` Values that changed, with how many pairs, comparisons or runs: ${parts.join(', ') || 'none'}${pairs ? `; ${pairs} pairs or runs on one side only` : ''}.`;
}

/** Appends a line to the "## Unreleased" entry (made at the top when there is none): never rewrites what is there. */
function appendChangelog(line) {
  let text = existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : '# Changelog\n';
  const start = text.indexOf('\n## Unreleased');
  if (start < 0) {
    const first = text.indexOf('\n## ');
    const at = first < 0 ? text.length : first + 1;
    text = `${text.slice(0, at)}${first < 0 ? '\n' : ''}## Unreleased\n\n${line}\n${text.slice(at)}`;
  } else {
    const next = text.indexOf('\n## ', start + 1);
    const end = next < 0 ? text.length : next + 1;
    let body = text.slice(0, end).replace(/\n*$/, '\n');
    // A list item right after a heading or a paragraph needs a blank line before it.
    if (!/(^|\n)- [^\n]*\n$/.test(body)) body += '\n';
    text = `${body}${line}${next < 0 ? '' : '\n'}${text.slice(end)}`;
  }
  writeFileSync(CHANGELOG, text);
}
