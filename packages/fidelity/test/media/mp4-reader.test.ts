/**
 * The library's MP4 reader against ffprobe: on every MP4 the suite holds
 * (fixtures) and on small files made here for each case it must get right
 * (B-frames, edit lists, AAC priming, rotations, aspect ratios, cover art,
 * full range, 10-bit, HEVC, track layouts, moov before and after mdat), the
 * probe it gives equals ffprobe's, field for field; the files it must not
 * read (fragmented, PCM, several edits, garbage) it leaves to ffprobe.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync, writeFileSync, mkdtempSync, rmSync, readFileSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../src/media/probe.js';
import type { MediaProbe, ProbeTools } from '../../src/media/probe.js';
import { ProcessScope } from '../../src/media/process.js';
import { readMp4 } from '../../src/media/mp4-reader.js';
import { ffmpegPath, ffprobePath } from './clips.js';
import { smallRuns } from '../../../../test/shared/fixtures.js';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'mp4-reader-'));
const root = path.resolve(__dirname, '../../../..');
let tools: ProbeTools;
let ffmpeg: string;

beforeAll(async () => {
  ffmpeg = await ffmpegPath();
  tools = { ffmpeg, ffprobe: await ffprobePath(), timeoutMs: 60_000 };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Outcome = { probe: Omit<MediaProbe, 'containerReader'>; reader: string } | { error: string };

async function probeWith(file: string, containerReader: 'ffprobe' | undefined): Promise<Outcome> {
  const scope = new ProcessScope();
  try {
    const { containerReader: reader, ...probe } = await probeMedia(scope, { ...tools, containerReader }, file, 'clip');
    return { probe, reader };
  } catch (error) {
    return { error: `${(error as { code?: string }).code}` };
  } finally {
    await scope.close();
  }
}

/** Both probes of `file`; the reader's must equal ffprobe's. Returns whether the reader read it. */
async function parity(file: string): Promise<boolean> {
  const [theirs, ours] = await Promise.all([probeWith(file, 'ffprobe'), probeWith(file, undefined)]);
  const strip = (o: Outcome): unknown => ('error' in o ? o : o.probe);
  expect(strip(ours), path.basename(file)).toEqual(strip(theirs));
  return (await readMp4(file)).ok;
}

const lavfi = (spec: string): string[] => ['-f', 'lavfi', '-i', spec];
const video = (frames = 24, size = '64x48'): string[] => lavfi(`testsrc2=size=${size}:rate=24,trim=end_frame=${frames}`);
const tone = (seconds = 1, rate = 48000): string[] => lavfi(`sine=frequency=440:sample_rate=${rate}:duration=${seconds}`);
const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '12'];
const bframes = ['-c:v', 'libx264', '-preset', 'medium', '-bf', '3', '-g', '12'];

async function make(name: string, args: string[]): Promise<string> {
  const file = path.join(dir, name);
  await run(ffmpeg, ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args, file]);
  return file;
}

/** Edge files the reader must read itself, each with ffprobe's probe. */
const EDGES: [string, () => Promise<string>][] = [
  ['plain video and AAC (moov after mdat, priming edit)', () => make('plain.mp4', [...video(), ...tone(), ...x264, '-c:a', 'aac', '-shortest'])],
  ['faststart (moov before mdat)', () => make('faststart.mp4', [...video(), ...tone(), ...x264, '-c:a', 'aac', '-movflags', '+faststart'])],
  ['B-frames (composition offsets, an edit with a media time)', () => make('bframes.mp4', [...video(30), ...bframes, '-an'])],
  ['B-frames with negative composition offsets', () => make('negative-cts.mp4', [...video(30), ...bframes, '-movflags', 'negative_cts_offsets', '-an'])],
  ['B-frames and audio', () => make('bframes-audio.mp4', [...video(30), ...tone(1.25), ...bframes, '-c:a', 'aac'])],
  ['video only', () => make('video-only.mp4', [...video(), ...x264])],
  ['two audio tracks', () => make('two-audio.mp4', [...video(), ...tone(), ...tone(1, 44100), '-map', '0', '-map', '1', '-map', '2', ...x264, '-c:a', 'aac', '-ac:a:1', '1'])],
  ['mono 44.1 kHz', () => make('mono.mp4', [...video(), ...tone(1, 44100), ...x264, '-c:a', 'aac', '-ac', '1'])],
  ['32 kHz', () => make('32k.mp4', [...video(), ...tone(1, 32000), ...x264, '-c:a', 'aac'])],
  ['full range (yuvj420p)', () => make('fullrange.mp4', [...video(), ...x264, '-pix_fmt', 'yuvj420p'])],
  ['10-bit H.264', () => make('10bit.mp4', [...video(), ...x264, '-pix_fmt', 'yuv420p10le'])],
  ['4:2:2 and 4:4:4', () => make('422.mp4', [...video(), ...x264, '-pix_fmt', 'yuv422p'])],
  ['4:4:4', () => make('444.mp4', [...video(), ...x264, '-pix_fmt', 'yuv444p'])],
  ['odd size (cropped SPS)', () => make('odd.mp4', [...video(24, '70x38'), ...x264])],
  ['non-square pixels (pasp)', () => make('sar.mp4', [...video(), ...x264, '-vf', 'setsar=4/3'])],
  ['HEVC 10-bit', () => make('hevc.mp4', [...video(12), '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=error', '-pix_fmt', 'yuv420p10le', '-vf', 'setsar=1', '-tag:v', 'hvc1'])],
  ['QuickTime (.mov)', () => make('quicktime.mov', [...video(), ...tone(), ...x264, '-c:a', 'aac'])],
  ['QuickTime mono (a chan box)', () => make('quicktime-mono.mov', [...video(), ...tone(1, 44100), ...x264, '-c:a', 'aac', '-ac', '1'])],
];

/** Files made from an edge file with a stream copy: edits cut into the media, rotations, an attached picture. */
const DERIVED: [string, (src: string) => Promise<string>][] = [
  ['an edit list from -ss (frames before the edit kept and discarded)', (src) => make('ss.mp4', ['-ss', '0.3', '-i', src, '-c', 'copy'])],
  ['an edit list from -ss on B-frames', (src) => make('ss-b.mp4', ['-ss', '0.4', '-i', path.join(dir, 'bframes-audio.mp4'), '-c', 'copy'])],
  ['an empty edit (a delayed video start)', (src) => make('delay.mp4', ['-itsoffset', '0.25', '-i', src, ...tone(1.5), '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac'])],
  ['rotation 90', (src) => make('rot90.mp4', ['-i', src, '-c', 'copy', '-metadata:s:v', 'rotate=90'])],
  ['rotation 180', (src) => make('rot180.mp4', ['-i', src, '-c', 'copy', '-metadata:s:v', 'rotate=180'])],
  ['rotation 270', (src) => make('rot270.mp4', ['-i', src, '-c', 'copy', '-metadata:s:v', 'rotate=270'])],
  ['aspect ratio in the SPS only', (src) => make('vui-sar.mp4', ['-i', src, '-c', 'copy', '-bsf:v', 'h264_metadata=sample_aspect_ratio=12/11'])],
  ['an attached picture', async (src) => {
    const png = await make('cover.png', [...lavfi('testsrc2=size=32x32'), '-frames:v', '1']);
    return make('cover.mp4', ['-i', src, '-i', png, '-map', '0', '-map', '1', '-c', 'copy', '-disposition:v:1', 'attached_pic']);
  }],
  ['audio only', (src) => make('audio-only.mp4', ['-i', src, '-map', '0:a', '-c', 'copy'])],
];

/** Files left to ffprobe: still the same probe. */
const FALLBACKS: [string, (src: string) => Promise<string>][] = [
  ['fragmented', (src) => make('frag.mp4', ['-i', src, '-c', 'copy', '-movflags', 'frag_keyframe+empty_moov'])],
  ['PCM in MOV', (src) => make('pcm.mov', ['-i', src, '-c:v', 'copy', '-c:a', 'pcm_s16le'])],
  ['MPEG-4 Part 2 video', (src) => make('mpeg4.mp4', ['-i', src, '-c:v', 'mpeg4', '-c:a', 'copy'])],
  ['Matroska', (src) => make('other.mkv', ['-i', src, '-c', 'copy'])],
  ['garbage', async () => {
    const file = path.join(dir, 'garbage.mp4');
    writeFileSync(file, Buffer.alloc(4096, 0x5a));
    return file;
  }],
  ['truncated mdat (moov first)', async () => {
    const whole = readFileSync(path.join(dir, 'faststart.mp4'));
    const file = path.join(dir, 'truncated.mp4');
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.7)));
    return file;
  }],
];

describe('the MP4 reader', () => {
  it('gives ffprobe\'s probe of every edge case, reading each itself', { timeout: 240_000 }, async () => {
    for (const [name, build] of EDGES) {
      const file = await build();
      expect(await parity(file), `${name}: ${JSON.stringify(await readMp4(file))}`).toBe(true);
    }
    const src = path.join(dir, 'plain.mp4');
    for (const [name, build] of DERIVED) {
      const file = await build(src);
      expect(await parity(file), `${name}: ${JSON.stringify(await readMp4(file))}`).toBe(true);
    }
  });

  it('leaves what it cannot vouch for to ffprobe, with the same probe', { timeout: 120_000 }, async () => {
    const src = path.join(dir, 'plain.mp4');
    if (!statSync(src, { throwIfNoEntry: false })) await EDGES[0]![1]();
    if (!statSync(path.join(dir, 'faststart.mp4'), { throwIfNoEntry: false })) await EDGES[1]![1]();
    for (const [name, build] of FALLBACKS) {
      const file = await build(src);
      expect(await parity(file), name).toBe(false);
    }
  });

  it('gives ffprobe\'s probe of every MP4 among the fixtures and the shared small generated runs', { timeout: 480_000 }, async () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(mp4|mov|m4a)$/i.test(e.name)) files.push(p);
      }
    };
    walk(path.join(root, 'fixtures'));
    const fixtures = files.length;
    expect(fixtures).toBeGreaterThan(20);
    for (const r of (await smallRuns()).runs) walk(r.dir);
    expect(files.length).toBeGreaterThan(fixtures);
    const left: string[] = [];
    for (const file of files) if (!(await parity(file))) left.push(`${path.relative(root, file)}: ${JSON.stringify(await readMp4(file))}`);
    expect(left).toEqual([]);
  });
});

/** Offset of the first box of `type` on the path below the top level (payload offsets follow the 8-byte header). */
function findBox(buf: Buffer, types: string[], from = 0, to = buf.length): number {
  let at = from;
  while (at + 8 <= to) {
    const size = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (type === types[0]) {
      if (types.length === 1) return at;
      const skip = type === 'stsd' ? 16 : 8;
      return findBox(buf, types.slice(1), at + skip, at + size);
    }
    if (size < 8) break;
    at += size;
  }
  throw new Error(`no ${types.join('/')}`);
}

const STBL = ['moov', 'trak', 'mdia', 'minf', 'stbl'];

describe('the MP4 reader on hostile files', () => {
  let base: Buffer;
  beforeAll(async () => {
    base = readFileSync(await make('hostile-base.mp4', [...video(12), ...tone(0.5), ...x264, '-c:a', 'aac', '-movflags', '+faststart']));
  });

  /** A copy of the base file with `patch` applied; the reader must refuse it quickly, and the probe must be ffprobe's. */
  async function refused(name: string, patch: (b: Buffer) => Buffer): Promise<string> {
    const file = path.join(dir, name);
    writeFileSync(file, patch(Buffer.from(base)));
    const started = Date.now();
    const reading = await readMp4(file);
    expect(Date.now() - started, name).toBeLessThan(2000);
    expect(reading.ok, name).toBe(false);
    expect(await parity(file), name).toBe(false);
    return reading.ok ? '' : reading.why;
  }

  it('refuses sample counts in the billions, tables that disagree and boxes past the end, and ffprobe probes them as before', { timeout: 120_000 }, async () => {
    const count = (b: Buffer, box: string, at: number, v: number): Buffer => {
      b.writeUInt32BE(v, findBox(b, [...STBL, box]) + at);
      return b;
    };
    expect(await refused('stsz-billions.mp4', (b) => count(b, 'stsz', 16, 0xfffffff0))).toMatch(/stsz box lists/);
    expect(await refused('stts-billions.mp4', (b) => count(b, 'stts', 16, 3_000_000_000))).toMatch(/stts/);
    expect(await refused('stts-disagrees.mp4', (b) => count(b, 'stts', 16, b.readUInt32BE(findBox(b, [...STBL, 'stts']) + 16) + 1))).toMatch(/stts/);
    expect(await refused('stco-past-end.mp4', (b) => count(b, 'stco', 16, b.length - 10))).toMatch(/past the end of the file/);
    expect(await refused('moov-past-end.mp4', (b) => {
      b.writeUInt32BE(b.length * 4, findBox(b, ['moov']));
      return b;
    })).toMatch(/runs past the end of the file/);
    expect(await refused('trak-past-moov.mp4', (b) => {
      b.writeUInt32BE(0x7fffffff, findBox(b, ['moov', 'trak']));
      return b;
    })).toMatch(/does not fit its parent/);
  });

  it('leaves two non-empty edits and an edit at another rate to ffprobe', { timeout: 120_000 }, async () => {
    const elst = (b: Buffer): number => findBox(b, ['moov', 'trak', 'edts', 'elst']);
    // The video's one edit (version 0: duration, media time, rate) played at double speed.
    expect(await refused('edit-rate.mp4', (b) => {
      b.writeInt32BE(0x20000, elst(b) + 24);
      return b;
    })).toMatch(/normal rate/);
    // A delayed start (an empty edit, then the media): the empty edit made a second non-empty one.
    const src = await make('two-edits-src.mp4', [...video(12), ...x264]);
    const delayed = readFileSync(await make('two-edits-delayed.mp4', ['-itsoffset', '0.25', '-i', src, ...tone(0.75), '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac']));
    const file = path.join(dir, 'two-edits.mp4');
    const at = elst(delayed);
    expect(delayed.readUInt32BE(at + 12)).toBe(2);
    delayed.writeInt32BE(0, at + 20);
    writeFileSync(file, delayed);
    expect(await readMp4(file)).toMatchObject({ ok: false, why: expect.stringMatching(/more than one edit/) });
    expect(await parity(file)).toBe(false);
  });

  it('refuses boxes nested past its depth cap and a moov larger than 64 MiB without reading it', { timeout: 60_000 }, async () => {
    // ftyp, then a moov of 40 nested trak boxes.
    const ftyp = base.subarray(0, base.readUInt32BE(0));
    let inner = Buffer.alloc(0);
    for (let i = 0; i < 40; i++) {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(8 + inner.length);
      head.write(i === 39 ? 'moov' : 'trak', 4, 'latin1');
      inner = Buffer.concat([head, inner]);
    }
    const deep = path.join(dir, 'deep.mp4');
    writeFileSync(deep, Buffer.concat([ftyp, inner]));
    const reading = await readMp4(deep);
    expect(reading).toMatchObject({ ok: false, why: expect.stringMatching(/nest deeper/) });

    // A sparse file: a 100 MiB moov that is never read.
    const huge = path.join(dir, 'huge-moov.mp4');
    const head = Buffer.alloc(8);
    head.writeUInt32BE(100 * 1024 * 1024);
    head.write('moov', 4, 'latin1');
    writeFileSync(huge, Buffer.concat([ftyp, head]));
    truncateSync(huge, ftyp.length + 100 * 1024 * 1024);
    const started = Date.now();
    expect(await readMp4(huge)).toMatchObject({ ok: false, why: expect.stringMatching(/more than the 67108864 read/) });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
