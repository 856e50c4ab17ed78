/**
 * The decoder log reader (media/decoder-log.ts): corrupt-frame lines counted per input and stream,
 * the filter graphs' frame sizes per input stream, and the text `-loglevel error` printed passed on
 * unchanged, in bounded memory. Lines written here in ffmpeg 5.1's exact form; one live check that
 * the tail of a real decode is the `-loglevel error` text, line for line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DecoderLog, distinctInputUrls, logsCorruptFrames } from '../../src/media/decoder-log.js';
import { resolveFfmpeg } from '../../src/media/ffmpeg.js';

const run = promisify(execFile);

/** Feeds `text` in chunks of `size` bytes (lines cut anywhere), returns what was passed on. */
function feed(log: DecoderLog, text: string, size = 7): string {
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += log.write(bytes.subarray(i, i + size));
  return out + log.end();
}

describe('DecoderLog', () => {
  const odd = '/tmp/a clip: [1] @ 0x1 ü.mp4';

  it('counts the corrupt-frame lines per input and stream, by the exact url', () => {
    const urls = distinctInputUrls([odd, odd]);
    expect(urls).toEqual([odd, `file:${odd}`]);
    const log = new DecoderLog(urls, { countCorrupt: true });
    feed(
      log,
      [
        `[warning] ${odd}: corrupt decoded frame in stream 0`,
        `[warning] file:${odd}: corrupt decoded frame in stream 0`,
        `[warning] ${odd}: corrupt decoded frame in stream 0`,
        `[warning] ${odd}: corrupt decoded frame in stream 1`,
        // Not ours: another url, a line with a context, another level.
        `[warning] /other.mp4: corrupt decoded frame in stream 0`,
        `[h264 @ 0x55] [warning] ${odd}: corrupt decoded frame in stream 0`,
        `[info] ${odd}: corrupt decoded frame in stream 0`,
        '',
      ].join('\n'),
    );
    expect([log.corruptFrames(0, 0), log.corruptFrames(0, 1), log.corruptFrames(1, 0), log.corruptFrames(1, 1)]).toEqual([2, 1, 1, 0]);
  });

  it('counts none where the build does not log them, or where two inputs share one url', () => {
    const off = new DecoderLog(['a.mp4'], { countCorrupt: false });
    feed(off, '[warning] a.mp4: corrupt decoded frame in stream 0\n');
    expect(off.corruptFrames(0, 0)).toBeNull();
    const same = new DecoderLog(['a.mp4', 'a.mp4'], { countCorrupt: true });
    feed(same, '[warning] a.mp4: corrupt decoded frame in stream 0\n');
    expect([same.corruptFrames(0, 0), same.corruptFrames(1, 0)]).toEqual([null, null]);
  });

  it('records each input stream\'s first frame size and the first other one', () => {
    const log = new DecoderLog(['a', 'b'], { countCorrupt: true });
    feed(
      log,
      [
        '[graph 0 input from stream 0:0 @ 0x5563ff546d00] [verbose] w:64 h:48 pixfmt:yuv420p tb:1/12288 fr:12/1 sar:1/1',
        '[graph 2 input from stream 0:0 @ 0x5563ff546e00] [verbose] w:64 h:48 pixfmt:yuv420p tb:1/12288 fr:12/1 sar:1/1',
        '[graph 1 input from stream 1:0 @ 0x5563ff547d00] [verbose] w:64 h:48 pixfmt:yuv420p tb:1/12288 fr:12/1 sar:1/1 sws_param:flags=2',
        '[graph_1_in_0_1 @ 0x5563ff548d00] [verbose] tb:1/16000 samplefmt:s16 samplerate:16000 chlayout:0x3',
        '[graph 0 input from stream 0:0 @ 0x5563ff549d00] [verbose] w:96 h:48 pixfmt:yuv420p tb:1/12288 fr:12/1 sar:1/1',
        '[graph 0 input from stream 0:0 @ 0x5563ff54ad00] [verbose] w:128 h:48 pixfmt:yuv420p tb:1/12288 fr:12/1 sar:1/1',
        // A reconfiguration for another reason (the format) at the first size.
        '[graph 1 input from stream 1:0 @ 0x5563ff54bd00] [verbose] w:64 h:48 pixfmt:yuvj420p tb:1/12288 fr:12/1 sar:1/1',
        '',
      ].join('\r\n'),
      13,
    );
    expect(log.sizes(0, 0)).toEqual({ first: { width: 64, height: 48 }, changedTo: { width: 96, height: 48 } });
    expect(log.sizes(1, 0)).toEqual({ first: { width: 64, height: 48 }, changedTo: null });
    expect(log.sizes(0, 1)).toBeNull();
  });

  it('passes on what -loglevel error printed: error lines without their tag, continuations, repeats collapsed', () => {
    const log = new DecoderLog(['a.mp4'], { countCorrupt: true });
    const out = feed(
      log,
      [
        '[info] frame=    1 fps=0.0 q=0.0 size=       0kB time=00:00:00.00 bitrate=N/A speed=   0x    \r[h264 @ 0x5613aafb86c0] [error] Invalid level prefix\n',
        '[h264 @ 0x5613aafb86c0] [error] error while decoding MB 1 2\n',
        '[h264 @ 0x5613aafb86c0] [error] error while decoding MB 1 2\n',
        '[h264 @ 0x5613aafb86c0] [error] error while decoding MB 1 2\n',
        '[warning] a.mp4: corrupt decoded frame in stream 0\n',
        '[verbose] a verbose message\nof two lines\n',
        '[fatal] a.mp4: Invalid data found when processing input\nsecond line of it\n',
        '[mov,mp4 @ 0x1] [aac @ 0x2] [error] a parent context\n',
        '[mov,mp4 @ 0x1] [aac @ 0x2] [verbose] and a verbose one\n',
        '[error] no end',
      ].join(''),
      5,
    );
    expect(out).toBe(
      [
        '[h264 @ 0x5613aafb86c0] Invalid level prefix\n',
        '[h264 @ 0x5613aafb86c0] error while decoding MB 1 2\n',
        '    Last message repeated 2 times\n',
        'a.mp4: Invalid data found when processing input\nsecond line of it\n',
        '[mov,mp4 @ 0x1] [aac @ 0x2] a parent context\n',
        'no end',
      ].join(''),
    );
    expect(log.corruptFrames(0, 0)).toBe(1);
    // Output before any tagged line is not ffmpeg's log at this level (a wrapper script's own words): kept as it is.
    const wrapper = new DecoderLog(['a.mp4'], { countCorrupt: true });
    expect(feed(wrapper, '[h264 @ 0x5581] error while decoding MB 7 3\nError while decoding stream #1:0\n')).toBe('[h264 @ 0x5581] error while decoding MB 7 3\nError while decoding stream #1:0\n');
  });

  it('holds at most one cut line, whatever ffmpeg prints', () => {
    const log = new DecoderLog(['a.mp4'], { countCorrupt: true });
    const long = `[error] ${'x'.repeat(1 << 20)}`;
    const out = feed(log, `${long}\n[warning] a.mp4: corrupt decoded frame in stream 0\n`, 65536);
    expect(out.length).toBeLessThanOrEqual(16_384);
    expect(out.startsWith('xxx')).toBe(true);
    expect(log.corruptFrames(0, 0)).toBe(1);
  });

  it('reads the corrupt-frame line only from the builds that write it in this form', () => {
    expect(logsCorruptFrames('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers')).toBe(true);
    expect(logsCorruptFrames('ffmpeg version n5.1.4 Copyright')).toBe(true);
    expect(logsCorruptFrames('ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/')).toBe(false);
    expect(logsCorruptFrames('ffmpeg version 4.4.2-0ubuntu0.22.04.1')).toBe(false);
    expect(logsCorruptFrames('ffmpeg version 7.1 Copyright')).toBe(false);
    expect(logsCorruptFrames(undefined)).toBe(false);
  });
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'decoder-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DecoderLog on a real decode', () => {
  it('passes on exactly the -loglevel error text of a decode with errors', async () => {
    const { ffmpeg } = await resolveFfmpeg();
    // 64 zeroed bytes in a later frame's slice data: the H.264 decoder reports errors (and, on 5.x, flags the frame).
    const whole = path.join(dir, 'whole.h264');
    await run(ffmpeg.path, ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=12', '-frames:v', '6', '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '0', '-f', 'h264', whole]);
    const bytes = readFileSync(whole);
    const cut = path.join(dir, 'cut.h264');
    writeFileSync(cut, Buffer.concat([bytes.subarray(0, Math.floor((bytes.length * 2) / 3)), Buffer.alloc(64), bytes.subarray(Math.floor((bytes.length * 2) / 3) + 64)]));
    // One decoding thread, as the measuring decoders run: ffmpeg's log keeps one "line started" state
    // for every thread, so with frame threads an error printed while another thread's verbose line is
    // unfinished comes out without its prefix, and the two decodes compared here differ by timing.
    const decode = async (level: string): Promise<string> => {
      const { stderr } = await run(ffmpeg.path, ['-nostdin', '-hide_banner', '-loglevel', level, '-threads', '1', '-i', cut, '-f', 'null', '-'], { encoding: 'utf8' });
      return stderr;
    };
    const plain = await decode('error');
    const log = new DecoderLog([cut], { countCorrupt: logsCorruptFrames(ffmpeg.version) });
    const passed = feed(log, await decode('repeat+level+verbose'), 4096);
    // Contexts are printed with their addresses, which differ from run to run.
    const same = (s: string): string => s.replace(/ @ 0x[0-9a-f]+\]/g, ' @ 0x]');
    expect(plain.length).toBeGreaterThan(0);
    expect(same(passed)).toBe(same(plain));
    expect(log.sizes(0, 0)).toEqual({ first: { width: 64, height: 48 }, changedTo: null });
  }, 30_000);
});
