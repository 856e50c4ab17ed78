#!/usr/bin/env node
// prepack / postpack of every published package (`npm pack`, `pnpm pack`, `npm publish`).
//
// prepack builds the package (and what it references) with the workspace's TypeScript, so a
// tarball is never made from a stale or missing dist/, and refuses loudly when it cannot. It then
// removes what the build left in dist/ from sources that no longer exist (tsc -b never deletes an
// output: a renamed module would otherwise ship twice, its old map pointing at a missing file).
// It then replaces `workspace:` dependency ranges by the exact version of the workspace
// package: pnpm does this itself, npm does not and would ship a package.json that no registry
// install can resolve (EUNSUPPORTEDPROTOCOL). The original package.json is kept beside it
// (package.json.prepack, git-ignored) and put back by postpack, or by the next prepack when
// a pack was interrupted.
//
// Usage (from a package folder): node ../../scripts/pack-hooks.mjs prepack|postpack
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = process.cwd();
const manifestFile = path.join(pkgDir, 'package.json');
const backupFile = `${manifestFile}.prepack`;
const step = process.argv[2];

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function restore() {
  if (existsSync(backupFile)) renameSync(backupFile, manifestFile);
}

function workspaceVersions() {
  const versions = new Map();
  const dir = path.join(root, 'packages');
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    versions.set(pkg.name, pkg.version);
  }
  return versions;
}

/** workspace:* -> 1.2.3, workspace:^ -> ^1.2.3, workspace:~ -> ~1.2.3, workspace:<range> -> <range> (pnpm's rules). */
function publishedRange(spec, version) {
  const rest = spec.slice('workspace:'.length);
  if (rest === '*' || rest === '') return version;
  if (rest === '^' || rest === '~') return `${rest}${version}`;
  return rest;
}

/** The outputs of tsc in dir (dist/) whose source (src/<same path>.ts or .tsx) is gone, removed; returns their paths. */
function pruneStaleOutputs(distDir, srcDir) {
  const removed = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
        continue;
      }
      const stem = entry.name.match(/^(.*?)\.(?:d\.ts\.map|d\.ts|js\.map|js)$/)?.[1];
      if (stem === undefined) continue;
      const source = path.join(srcDir, path.relative(distDir, dir), stem);
      if (!existsSync(`${source}.ts`) && !existsSync(`${source}.tsx`)) {
        rmSync(file);
        removed.push(path.relative(pkgDir, file));
      }
    }
  };
  if (existsSync(distDir)) walk(distDir);
  return removed;
}

if (step === 'prepack') {
  restore();
  if (path.dirname(pkgDir) !== path.join(root, 'packages')) fail(`run from a package folder under ${path.join(root, 'packages')}`);
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    fail('the workspace is not installed, so the package cannot be built; run `npm run setup` (or `npx pnpm@12.4.2 install`) at the repository root first');
  }
  try {
    execFileSync(process.execPath, [tsc, '-b', pkgDir], { cwd: root, stdio: 'inherit' });
  } catch {
    fail('the TypeScript build failed; nothing was packed');
  }
  const stale = pruneStaleOutputs(path.join(pkgDir, 'dist'), path.join(pkgDir, 'src'));
  if (stale.length > 0) process.stderr.write(`pack: removed ${stale.length} stale build outputs of deleted sources (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', ...' : ''})\n`);
  const text = readFileSync(manifestFile, 'utf8');
  const pkg = JSON.parse(text);
  const main = pkg.bin ? Object.values(pkg.bin) : [pkg.main];
  for (const entry of main) if (!existsSync(path.join(pkgDir, entry))) fail(`${entry} is missing after the build`);
  const versions = workspaceVersions();
  let changed = false;
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, spec] of Object.entries(pkg[field] ?? {})) {
      if (typeof spec !== 'string' || !spec.startsWith('workspace:')) continue;
      const version = versions.get(name);
      if (!version) fail(`${field}.${name} is "${spec}" but no workspace package is named ${name}`);
      pkg[field][name] = publishedRange(spec, version);
      changed = true;
    }
  }
  if (changed) {
    writeFileSync(backupFile, text);
    // Renamed into place, never written in place: a process reading package.json meanwhile (node
    // resolving this package) sees the old file or the new one, never half of one.
    writeFileSync(`${manifestFile}.tmp`, `${JSON.stringify(pkg, null, 2)}\n`);
    renameSync(`${manifestFile}.tmp`, manifestFile);
  }
} else if (step === 'postpack') {
  restore();
} else {
  fail('expected prepack or postpack');
}
