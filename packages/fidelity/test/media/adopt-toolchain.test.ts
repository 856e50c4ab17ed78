import { describe, expect, it } from 'vitest';
import { adoptToolchain, resolveFfmpeg, type FfmpegToolchain } from '../../src/media/ffmpeg.js';

describe('adoptToolchain', () => {
  it('makes resolveFfmpeg answer with a toolchain resolved elsewhere for the same options, without identifying it again', async () => {
    // Options no other test uses, and binaries that do not exist: resolving them for real would fail.
    const options = { ffmpegPath: '/nonexistent/adopted/ffmpeg', ffprobePath: '/nonexistent/adopted/ffprobe' };
    const identity = { source: 'option', version: 'ffmpeg version test', sha256: 'a'.repeat(64) };
    const toolchain = {
      ffmpeg: { kind: 'ffmpeg', path: options.ffmpegPath, ...identity },
      ffprobe: { kind: 'ffprobe', path: options.ffprobePath, ...identity },
    } as unknown as FfmpegToolchain;
    await expect(resolveFfmpeg({ ...options, ffmpegPath: '/nonexistent/other/ffmpeg' })).rejects.toMatchObject({ name: 'FidelityError' });
    adoptToolchain(options, toolchain);
    expect(await resolveFfmpeg(options)).toBe(toolchain);
    // An entry already there is kept: adopting never replaces what this thread resolved itself.
    adoptToolchain(options, { ...toolchain });
    expect(await resolveFfmpeg(options)).toBe(toolchain);
  });
});
