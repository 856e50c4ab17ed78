/**
 * A run folder as the zip GitHub's artifact download gives (files at the
 * root), made with yazl with fixed times so the same folder gives the same
 * bytes. The fake provider serves these bytes and their digest.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';

export const FIXTURE_RUNS = fileURLToPath(new URL('../../../../fixtures/runs/', import.meta.url));

function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full, `${prefix}${name}/`) : [`${prefix}${name}`];
    });
}

/** The zip of a folder; `leave` names files left out (the run's files before ci.json and the seal exist). */
export async function zipFolder(dir: string, leave: readonly string[] = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const name of walk(dir).filter((f) => !leave.includes(f))) zip.addBuffer(readFileSync(path.join(dir, name)), name, { mtime: new Date(0) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The identities of the committed fixture runs (fixtures/runs/<site>/ci.json), as the fake provider must know them. */
export const FIXTURE_IDENTITY = {
  h200: { run_id: 30054883436, attempt: 1, head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd', artifact: { id: 4242001, name: 'h3-video-30054883436-1' } },
  b200: { run_id: 30061277519, attempt: 2, head_sha: '9d4e1b7a03c8f25e6a1d0b9c4f7e2a8d5b3c6e01', artifact: { id: 4243117, name: 'h3-video-30061277519-2' } },
  h100: { run_id: 30049902211, attempt: 1, head_sha: '4a7c2e9f1b3d5a8c0e6f2b4d7a9c1e3f5b8d0a26', artifact: { id: 4240875, name: 'h3-video-30049902211-1' } },
} as const;
