// xmllint (Debian libxml2-utils) validates the JUnit output against junit.xsd. CI must have it
// (.ci/run installs it); elsewhere the schema checks are skipped, loudly, never passed.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

export const XSD = path.join(import.meta.dirname, 'junit.xsd');

function found(): boolean {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const HAVE_XMLLINT = found();
if (!HAVE_XMLLINT) {
  if (process.env.CI === 'true') throw new Error('xmllint is required to validate the JUnit output and was not found: install Debian\'s "libxml2-utils" (.ci/run does).');
  console.warn('SKIPPED: the JUnit schema checks need xmllint (apt-get install -y libxml2-utils).');
}

/** xmllint's verdict on one file: ok, and what it said (the reason when not ok). */
export function validate(file: string): { ok: boolean; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}
