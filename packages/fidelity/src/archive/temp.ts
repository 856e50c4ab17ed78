/**
 * Temp folders the library owns. Each is removed by its owner's close(); any
 * still present when the process exits (a caller that forgot close(), an
 * exception on the way out) is removed by one exit hook.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const live = new Set<string>();
let hooked = false;

export async function makeTempDir(base: string | undefined, label: string): Promise<string> {
  const dir = await mkdtemp(path.join(base ?? os.tmpdir(), `fidelity-${label}-`));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}
