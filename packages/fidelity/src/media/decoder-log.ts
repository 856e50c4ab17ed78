/**
 * Reads a decoder process's log line by line (docs/metrics.md, "Clip validity"), so that the clip
 * checks learn what only ffmpeg's messages say, without holding a chatty log:
 *
 * - the decoder's corrupt-frame flags: for every decoded frame whose `decode_error_flags` is set or
 *   which carries AV_FRAME_FLAG_CORRUPT (PyAV's `frame.is_corrupt`), the ffmpeg 5 command line logs
 *   `<input url>: corrupt decoded frame in stream <index>` at warning level, counted here per input
 *   and stream;
 * - each input video stream's frame sizes: at verbose level every (re)configuration of a filter
 *   graph's input prints `[graph N input from stream F:S @ 0x...] w:W h:H ...`, once for the first
 *   frame and again when a decoded frame's size changes (the CLI then rescales it silently to the
 *   first size, so the planes never show the change);
 * - what `-loglevel error` printed before, passed on unchanged: error-or-worse lines with the level
 *   tag taken off, repeated lines collapsed as ffmpeg collapses them, so the stderr tail
 *   (process.ts) and every message built from it stay as they were.
 *
 * The process runs with `-loglevel repeat+level+LEVEL`: `level` tags every line, `repeat` keeps
 * every corrupt-frame line (ffmpeg would otherwise collapse identical lines into "Last message
 * repeated N times").
 */

/** The video decoder's log level: verbose, for the filter graphs' sizes. */
export const VIDEO_DECODER_LOG_LEVEL = 'repeat+level+verbose';
/** The audio decoder's: warning is enough for the corrupt-frame lines. */
export const AUDIO_DECODER_LOG_LEVEL = 'repeat+level+warning';

/** Longer lines are cut here (the rest up to the line's end is dropped): memory stays bounded whatever ffmpeg prints. */
const MAX_LINE_BYTES = 16_384;

const LEVELS = ['quiet', 'panic', 'fatal', 'error', 'warning', 'info', 'verbose', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];
/** What `-loglevel error` printed: error, fatal, panic (and quiet's nothing). */
const PASSED = new Set<Level>(['quiet', 'panic', 'fatal', 'error']);

/**
 * The prefixes ffmpeg puts at the start of a line: the context's `[name @ 0x...] ` (none, or two when
 * the context has a parent: `[parent @ 0x...] [name @ 0x...] `), then `[level] `.
 */
const PREFIX = /^((?:\[[^\]]* @ [^\]]+\] ){0,2})\[(quiet|panic|fatal|error|warning|info|verbose|debug|trace)\] /;
const GRAPH_INPUT = /^\[graph \d+ input from stream (\d+):(\d+) @ [^\]]+\] $/;
const SIZE = /^w:(\d+) h:(\d+)(?: |$)/;
const CORRUPT = /: corrupt decoded frame in stream (\d+)$/;

/**
 * Whether this ffmpeg build logs the corrupt-frame line in the form read here, from its `-version`
 * line: the 5.x releases (checked on 5.1). Older builds log it only with `-xerror` (the 2018 build of
 * the npm package never does); 6.1 and later word it otherwise. Elsewhere the count is null: the
 * decoder's flag is not reported, which is not the same as no corrupt frame.
 */
export function logsCorruptFrames(versionLine: string | undefined): boolean {
  const token = /^ffmpeg version n?(\d+)\.\d+/.exec(versionLine ?? '');
  return token !== null && token[1] === '5';
}

/**
 * ffmpeg's log sanitising (libavutil/log.c): control characters other than BS..CR become '?', so
 * a url with such characters is matched in the form the log shows it.
 */
function sanitized(url: string): string {
  return url.replace(/[\u0000-\u0007\u000e-\u001f]/g, '?');
}

/** A frame size. */
export interface FrameSize {
  width: number;
  height: number;
}

/** What the log said about one input stream's frame sizes. */
export interface StreamSizes {
  /** The size its first decoded frame configured. */
  first: FrameSize;
  /** The first other size a later frame had; null: every frame had the first size. */
  changedTo: FrameSize | null;
}

/**
 * The line reader of one process's stderr. `urls` are its inputs exactly as given to `-i`, in
 * order: they must differ from each other (see {@link distinctInputUrls}), or a corrupt-frame line
 * could not be told apart. The decoders give the names of links of their own (input-links.ts): a
 * url that holds a newline could otherwise print a line of the form read here.
 */
export class DecoderLog {
  readonly #urls: string[];
  readonly #countCorrupt: boolean;
  readonly #ambiguous: Set<string>;
  /** Per input, per stream index: corrupt-frame lines seen. */
  readonly #corrupt = new Map<string, number>();
  readonly #sizes = new Map<string, StreamSizes>();
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #cut = false;
  /** The level of the last tagged line; null before any: untagged output (not ffmpeg's log) is passed on as it is. */
  #lastLevel: Level | null = null;
  #lastPassed: string | null = null;
  #repeats = 0;

  constructor(urls: readonly string[], options: { countCorrupt: boolean }) {
    this.#urls = urls.map(sanitized);
    // Two inputs one url: their lines cannot be told apart, so neither is counted (never split by guess).
    this.#ambiguous = new Set(this.#urls.filter((u, i) => this.#urls.indexOf(u) !== i));
    this.#countCorrupt = options.countCorrupt;
  }

  /** Reads a chunk of stderr; returns what `-loglevel error` would have printed of it. */
  write(chunk: Buffer): string {
    let out = '';
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte !== 0x0a && byte !== 0x0d) continue;
      this.#take(chunk.subarray(start, i));
      out += this.#line(byte === 0x0a ? '\n' : '\r');
      start = i + 1;
    }
    this.#take(chunk.subarray(start));
    return out;
  }

  /** The process has exited: a last line without its end still counts. */
  end(): string {
    return this.#pendingBytes > 0 ? this.#line('') : '';
  }

  /** Corrupt-frame lines of input `input`'s stream `stream`; null when this build does not log them ({@link logsCorruptFrames}). */
  corruptFrames(input: number, stream: number): number | null {
    if (!this.#countCorrupt || this.#ambiguous.has(this.#urls[input] ?? '')) return null;
    return this.#corrupt.get(`${input}:${stream}`) ?? 0;
  }

  /** The frame sizes of input `input`'s stream `stream`; null when no filter graph was configured for it (no frame, or a log in another form). */
  sizes(input: number, stream: number): StreamSizes | null {
    return this.#sizes.get(`${input}:${stream}`) ?? null;
  }

  #take(part: Buffer): void {
    if (part.length === 0 || this.#cut) return;
    const room = MAX_LINE_BYTES - this.#pendingBytes;
    if (part.length > room) {
      this.#pending.push(part.subarray(0, room));
      this.#pendingBytes += room;
      this.#cut = true;
      return;
    }
    this.#pending.push(part);
    this.#pendingBytes += part.length;
  }

  /** One whole line (its end is `eol`): counted, and passed on when it is error-or-worse. */
  #line(eol: string): string {
    const text = Buffer.concat(this.#pending, this.#pendingBytes).toString('utf8');
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#cut = false;
    const prefix = PREFIX.exec(text);
    let body: string;
    let context = '';
    if (prefix) {
      context = prefix[1] ?? '';
      this.#lastLevel = prefix[2] as Level;
      body = text.slice(prefix[0].length);
    } else {
      // A line without a prefix continues the message before it (a message of several lines, or one
      // built by several calls): it has that message's level.
      if (text.length === 0 && eol === '') return '';
      body = text;
    }
    const level = this.#lastLevel;
    if (prefix && level) this.#read(context, level, body);
    if (level && !PASSED.has(level)) return '';
    const passed = context + body;
    // ffmpeg without `repeat` prints a line equal to the one before as a count, once a different one comes.
    if (prefix && eol !== '\r' && passed.length > 0 && passed === this.#lastPassed) {
      this.#repeats++;
      return '';
    }
    let out = '';
    if (this.#repeats > 0) out += `    Last message repeated ${this.#repeats} times\n`;
    this.#repeats = 0;
    if (prefix) this.#lastPassed = passed;
    return out + passed + eol;
  }

  #read(context: string, level: Level, body: string): void {
    if (context === '' && this.#countCorrupt && (level === 'warning' || level === 'fatal')) {
      const corrupt = CORRUPT.exec(body);
      if (corrupt) {
        const input = this.#urls.indexOf(body.slice(0, corrupt.index));
        if (input >= 0) {
          const key = `${input}:${corrupt[1]}`;
          this.#corrupt.set(key, (this.#corrupt.get(key) ?? 0) + 1);
        }
      }
      return;
    }
    if (level !== 'verbose' || context === '') return;
    const graph = GRAPH_INPUT.exec(context);
    const size = graph ? SIZE.exec(body) : null;
    if (!graph || !size) return;
    const key = `${graph[1]}:${graph[2]}`;
    const seen: FrameSize = { width: Number(size[1]), height: Number(size[2]) };
    const known = this.#sizes.get(key);
    if (!known) this.#sizes.set(key, { first: seen, changedTo: null });
    else if (known.changedTo === null && (seen.width !== known.first.width || seen.height !== known.first.height)) known.changedTo = seen;
  }
}

/**
 * The `-i` arguments of a process's inputs: a file given a second time is named `file:PATH` (the
 * same file through ffmpeg's file protocol), so that every message names one input. (A third time
 * stays as it is: {@link DecoderLog} then counts none of them.)
 */
export function distinctInputUrls(files: readonly string[]): string[] {
  const seen = new Set<string>();
  return files.map((file) => {
    const url = seen.has(file) && !seen.has(`file:${file}`) ? `file:${file}` : file;
    seen.add(url);
    return url;
  });
}
