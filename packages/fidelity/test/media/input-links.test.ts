/**
 * Input-link folders (media/input-links.ts) are temp folders like a run's copies: a process killed
 * outright (SIGKILL) leaves its `fidelity-inputs-*` folder, and the next process that links inputs
 * under the same TMPDIR sweeps it up. Real processes of the built library (build first).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const LINKS = fileURLToPath(new URL('../../dist/media/input-links.js', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-input-links-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A node process with TMPDIR `base` that links `file` and then runs `then` (a statement, `links` in scope). */
function child(base: string, file: string, then: string): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const code = `import { linkInputs } from ${JSON.stringify(LINKS)};\nconst links = await linkInputs([${JSON.stringify(file)}]);\n${then}`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, TMPDIR: base } });
}

describe('input-link folders', () => {
  it('left by a SIGKILLed process are swept by the next process that links inputs there', () => {
    const base = path.join(tmp, 'sweep');
    mkdirSync(base);
    const clip = path.join(tmp, 'clip.mp4');
    writeFileSync(clip, 'bytes');
    const killed = child(base, clip, "process.stdout.write(links.dir); process.kill(process.pid, 'SIGKILL');");
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const left = path.basename(killed.stdout);
    expect(left).toMatch(/^fidelity-inputs-[0-9a-f]{8}-[0-9]+-[A-Za-z0-9]{6}$/);
    expect(readdirSync(base)).toEqual([left]);
    // A later process: its own folder is made (and removed), the dead one's is gone.
    const later = child(base, clip, 'process.stdout.write(links.dir); links.remove();');
    expect(later.status, later.stderr).toBe(0);
    expect(path.basename(later.stdout)).not.toBe(left);
    expect(readdirSync(base)).toEqual([]);
  });

  it('of a live process are kept', () => {
    const base = path.join(tmp, 'live');
    mkdirSync(base);
    const clip = path.join(tmp, 'clip.mp4');
    writeFileSync(clip, 'bytes');
    // This process is alive: a folder in its name is not a leftover.
    const hand = path.join(base, path.basename(child(base, clip, 'process.stdout.write(links.dir);').stdout).replace(/-[0-9]+-([A-Za-z0-9]{6})$/, `-${process.pid}-$1`));
    mkdirSync(hand);
    expect(child(base, clip, 'links.remove();').status).toBe(0);
    expect(readdirSync(base)).toEqual([path.basename(hand)]);
  });
});
