/**
 * The library identifies ffmpeg/ffprobe by the file, not the path: a binary replaced at the same
 * FIDELITY_FFMPEG path between two resolutions in one process (rewritten in place with bytes of
 * the same size, or a new file renamed over it) is identified again, so the report names the
 * SHA-256 of the build that ran. Real wrapper scripts around the real binaries.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { realFfmpeg, realFfprobe } from './wrapper.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-ffmpeg-identity-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A shell script `build` that runs the real binary: one build letter per version, all of one size. */
function script(file: string, real: string, build: string): void {
  writeFileSync(file, `#!/bin/sh\n# build ${build}\nexec ${real} "$@"\n`);
  chmodSync(file, 0o755);
}

describe('resolveFfmpeg', () => {
  it('identifies a binary replaced at the same FIDELITY_FFMPEG path again (in place, same size; or renamed over)', async () => {
    const ffmpeg = path.join(tmp, 'ffmpeg');
    const ffprobe = path.join(tmp, 'ffprobe');
    script(ffmpeg, realFfmpeg(), 'A');
    script(ffprobe, realFfprobe(), 'A');
    const env = { ...process.env, FIDELITY_FFMPEG: ffmpeg, FIDELITY_FFPROBE: ffprobe };

    const a = await resolveFfmpeg({ env });
    expect(a.ffmpeg.sha256).toBe(sha256(ffmpeg));
    // Unchanged files: the same resolution, not run and hashed again.
    expect(await resolveFfmpeg({ env })).toBe(a);

    // Rewritten in place, bytes of the same size.
    script(ffmpeg, realFfmpeg(), 'B');
    const b = await resolveFfmpeg({ env });
    expect(b.ffmpeg.sha256).toBe(sha256(ffmpeg));
    expect(b.ffmpeg.sha256).not.toBe(a.ffmpeg.sha256);
    expect(b.ffprobe.sha256).toBe(a.ffprobe.sha256);

    // Another file renamed over the path (a new inode): ffprobe this time.
    const next = path.join(tmp, 'ffprobe.next');
    script(next, realFfprobe(), 'C');
    renameSync(next, ffprobe);
    const c = await resolveFfmpeg({ env });
    expect(c.ffprobe.sha256).toBe(sha256(ffprobe));
    expect(c.ffprobe.sha256).not.toBe(b.ffprobe.sha256);
    expect(await resolveFfmpeg({ env })).toBe(c);
  });
});
