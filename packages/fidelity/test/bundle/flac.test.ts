import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFlac16, FLAC_BLOCK_SIZE } from '../../src/bundle/flac.js';
import { FidelityError } from '../../src/errors.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';
import { createPrng } from '../../src/synth/prng.js';

const run = promisify(execFile);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-flac-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The ffmpeg the library resolves, and the system's (another FFmpeg version's decoder) where there is one. */
let decoders: string[] = [];
beforeAll(async () => {
  const resolved = (await resolveFfmpeg()).ffmpeg.path;
  decoders = [...new Set([resolved, ...(existsSync('/usr/bin/ffmpeg') ? ['/usr/bin/ffmpeg'] : [])])];
});

/** The fixtures' seeded generator (mulberry32), so the noise is the same on every run and machine. */
const random = (seed: number): (() => number) => createPrng(`flac-test-${seed}`);
const signal = (n: number, f: (i: number) => number): Int16Array => Int16Array.from({ length: n }, (_, i) => f(i));
const noise = (n: number, seed: number, amplitude = 32768): Int16Array => {
  const r = random(seed);
  return signal(n, () => Math.max(-32768, Math.min(32767, Math.floor(r() * 2 * amplitude) - amplitude)));
};
const sine = (n: number, rate: number, hz: number, amplitude: number, phase = 0): Int16Array =>
  signal(n, (i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate + phase)));

/** 16-bit PCM as the file interleaves it (and as STREAMINFO's MD5 is defined): little-endian, channel by channel within each sample. */
function interleave(channels: Int16Array[]): Buffer {
  const n = channels[0]!.length;
  const out = Buffer.alloc(n * channels.length * 2);
  for (let i = 0; i < n; i++) for (let c = 0; c < channels.length; c++) out.writeInt16LE(channels[c]![i]!, (i * channels.length + c) * 2);
  return out;
}

let fileNo = 0;
/** Encodes, decodes with each real ffmpeg with its CRC checks on (the decodes must agree), and returns the file and the decoded PCM. */
async function roundTrip(channels: Int16Array[], rate: number): Promise<{ flac: Uint8Array; pcm: Buffer; file: string }> {
  const flac = encodeFlac16(channels, rate);
  const file = path.join(tmp, `t${fileNo++}.flac`);
  writeFileSync(file, flac);
  const decoded: Buffer[] = [];
  for (const ffmpeg of decoders) {
    const { stdout, stderr } = await run(
      ffmpeg,
      ['-hide_banner', '-v', 'error', '-err_detect', 'crccheck+bitstream+buffer+explode', '-i', file, '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 1 << 26 },
    );
    expect(stderr.toString(), ffmpeg).toBe('');
    decoded.push(stdout);
  }
  for (const d of decoded.slice(1)) expect(d.equals(decoded[0]!)).toBe(true);
  return { flac, pcm: decoded[0]!, file };
}

/** What ffmpeg reads from the header: codec, rate, channels, sample format. */
async function probe(file: string): Promise<string> {
  const { stderr } = await run(decoders[0]!, ['-hide_banner', '-i', file], { encoding: 'utf8' }).catch((e: { stderr: string }) => e);
  return stderr.split('\n').find((l) => l.includes('Audio:')) ?? '';
}

/** STREAMINFO fields (RFC 9639 8.2), read back from the bytes. */
function streamInfo(flac: Uint8Array): { minBlock: number; maxBlock: number; rate: number; channels: number; bits: number; samples: number; md5: string } {
  const b = Buffer.from(flac);
  expect(b.toString('latin1', 0, 4)).toBe('fLaC');
  // The only metadata block, last-block flag set, type 0, 34 bytes.
  expect([b[4], b.readUIntBE(5, 3)]).toEqual([0x80, 34]);
  const s = b.subarray(8, 42);
  return {
    minBlock: s.readUInt16BE(0),
    maxBlock: s.readUInt16BE(2),
    rate: (s[10]! << 12) | (s[11]! << 4) | (s[12]! >> 4),
    channels: ((s[12]! >> 1) & 7) + 1,
    bits: (((s[12]! & 1) << 4) | (s[13]! >> 4)) + 1,
    samples: (s[13]! & 0x0f) * 2 ** 32 + s.readUInt32BE(14),
    md5: s.subarray(18, 34).toString('hex'),
  };
}

/** Round trip, and every decoded sample, the header and the MD5 as given. */
async function expectLossless(channels: Int16Array[], rate: number): Promise<Uint8Array> {
  const { flac, pcm, file } = await roundTrip(channels, rate);
  const expected = interleave(channels);
  expect(pcm.length).toBe(expected.length);
  expect(pcm.equals(expected)).toBe(true);
  const info = streamInfo(flac);
  expect(info).toEqual({
    minBlock: FLAC_BLOCK_SIZE,
    maxBlock: FLAC_BLOCK_SIZE,
    rate,
    channels: channels.length,
    bits: 16,
    samples: channels[0]!.length,
    md5: createHash('md5').update(pcm).digest('hex'),
  });
  const line = await probe(file);
  expect(line).toMatch(new RegExp(`Audio: flac, ${rate} Hz`));
  expect(line).toContain('s16');
  return flac;
}

describe('encodeFlac16', () => {
  it('round-trips silence, a constant and full-scale extremes exactly', async () => {
    const n = 10_000;
    await expectLossless([new Int16Array(n), new Int16Array(n)], 32000);
    await expectLossless([signal(n, () => 1234), signal(n, () => -32768)], 48000);
    await expectLossless([signal(n, (i) => (i & 1 ? 32767 : -32768)), signal(n, (i) => (i & 1 ? -32768 : 32767))], 44100);
    await expectLossless([signal(n, (i) => ((i >> 3) & 1 ? 32767 : -32768))], 22050);
    // Silence and a constant cost a few bytes a frame, not 2 a sample.
    expect(encodeFlac16([new Int16Array(n), new Int16Array(n)], 32000).length).toBeLessThan(100);
  });

  it('round-trips white noise, a sine and a quiet difference exactly', async () => {
    const n = 20_000;
    await expectLossless([noise(n, 1), noise(n, 2)], 32000);
    await expectLossless([sine(n, 32000, 440, 30000), sine(n, 32000, 441, 20000, 1)], 32000);
    await expectLossless([noise(n, 3, 3), noise(n, 4, 3)], 32000);
    // Left and right nearly the same: a stereo mode with a side channel (17-bit samples).
    const left = sine(n, 48000, 1000, 32767);
    await expectLossless([left, signal(n, (i) => Math.max(-32768, left[i]! - 1 + (i % 3)))], 48000);
    await expectLossless([signal(n, (i) => (i % 2 ? 32767 : -32768)), signal(n, (i) => (i % 2 ? -32768 : 32767))], 48000);
  });

  it('round-trips 1 to 8 channels', async () => {
    for (const count of [1, 3, 6, 8]) {
      const channels = Array.from({ length: count }, (_, c) => (c % 2 ? noise(5000, 10 + c, 200) : sine(5000, 44100, 200 * (c + 1), 8000)));
      await expectLossless(channels, 44100);
    }
  });

  it('round-trips lengths around the block size, a single sample and 2 s of stereo at 32 kHz', async () => {
    for (const n of [1, 2, 15, 16, 17, 255, 256, 257, FLAC_BLOCK_SIZE - 1, FLAC_BLOCK_SIZE, FLAC_BLOCK_SIZE + 1, 3 * FLAC_BLOCK_SIZE + 100]) {
      await expectLossless([noise(n, n, 1000), sine(n, 32000, 300, 10000)], 32000);
    }
    await expectLossless([noise(1, 7)], 32000);
    await expectLossless([sine(64_000, 32000, 440, 12000), noise(64_000, 99, 300)], 32000);
  });

  it('round-trips sample rates with and without a frame-header code', async () => {
    for (const rate of [32000, 44100, 48000, 22050, 8000, 96000, 12345, 11025, 1, 1_048_575]) {
      await expectLossless([sine(5000, rate, rate / 50, 9000), noise(5000, rate, 50)], rate);
    }
  });

  it('gives the same bytes for the same samples', () => {
    const channels = [noise(70_000, 5, 40), sine(70_000, 32000, 440, 5000)];
    const one = encodeFlac16(channels, 32000);
    const two = encodeFlac16(channels.map((c) => c.slice()), 32000);
    expect(Buffer.from(two).equals(Buffer.from(one))).toBe(true);
    expect(Buffer.from(encodeFlac16([channels[0]!, channels[0]!], 32000)).equals(Buffer.from(one))).toBe(false);
  });

  it('gives the bytes it gave when written: the encoding is the same on every machine', async () => {
    // A fixed stereo signal that takes every kind of subframe (LPC, constant, verbatim, fixed, in
    // that order by frame) and a side channel. Its digest was recorded when the encoder was written; a change means files of
    // the same samples now differ between versions or machines, and must be a deliberate one.
    const r = random(2026);
    const n = 3 * FLAC_BLOCK_SIZE + 1000;
    const left = signal(n, (i) => {
      if (i < FLAC_BLOCK_SIZE) return Math.round(9000 * Math.sin(i / 9) + 2500 * Math.sin(i / 2.7) + (r() - 0.5) * 60);
      if (i < 2 * FLAC_BLOCK_SIZE) return 77;
      if (i < 3 * FLAC_BLOCK_SIZE) return Math.floor(r() * 65536) - 32768;
      return 3 * i - 40000;
    });
    const right = signal(n, (i) => Math.max(-32768, Math.min(32767, left[i]! + (i % 5) - 2)));
    const flac = await expectLossless([left, right], 32000);
    expect(createHash('sha256').update(flac).digest('hex')).toBe('b0d77a931fe8468c8a7e6db2522b58563542d58e7d86ffd9a2222b27e55964b2');
  });

  it('is smaller than 16-bit PCM for difference signals, and never much larger for white noise', () => {
    const n = 64_000;
    const pcm = (channels: Int16Array[]): number => channels.length * channels[0]!.length * 2;
    // ±3 LSB: at most 3 bits of information a sample instead of 16.
    const quiet = [noise(n, 11, 3), noise(n, 12, 3)];
    expect(encodeFlac16(quiet, 32000).length * 4).toBeLessThan(pcm(quiet));
    // A music-like difference: a few tones plus a little noise, at a moderate level.
    const r = random(13);
    const music = [0, 1].map((c) =>
      signal(n, (i) => Math.round(3000 * Math.sin(i / (20 + c)) + 1500 * Math.sin(i / 7.3) + 800 * Math.sin(i / 3.1 + c) + (r() - 0.5) * 40)),
    );
    expect(encodeFlac16(music, 32000).length * 2).toBeLessThan(pcm(music));
    // Full-scale white noise cannot be compressed: the verbatim fallback keeps it within the headers' cost.
    const white = [noise(n, 14), noise(n, 15)];
    expect(encodeFlac16(white, 32000).length).toBeLessThan(pcm(white) * 1.01);
  });

  it('refuses what it cannot encode', () => {
    const one = [new Int16Array(10)];
    const refused = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(FidelityError);
        return (e as FidelityError).code;
      }
      return 'accepted';
    };
    expect(refused(() => encodeFlac16([], 32000))).toBe('INVALID_ARGUMENT');
    expect(refused(() => encodeFlac16(Array.from({ length: 9 }, () => new Int16Array(10)), 32000))).toBe('INVALID_ARGUMENT');
    expect(refused(() => encodeFlac16([new Int16Array(10), new Int16Array(9)], 32000))).toBe('INVALID_ARGUMENT');
    expect(refused(() => encodeFlac16([new Int16Array(0)], 32000))).toBe('INVALID_ARGUMENT');
    expect(refused(() => encodeFlac16([new Float32Array(10) as unknown as Int16Array], 32000))).toBe('INVALID_ARGUMENT');
    for (const rate of [0, -1, 44100.5, Number.NaN, 1_048_576]) expect(refused(() => encodeFlac16(one, rate)), String(rate)).toBe('INVALID_ARGUMENT');
    expect(refused(() => encodeFlac16(one, 1_048_575))).toBe('accepted');
  });
});
