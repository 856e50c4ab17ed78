#!/usr/bin/env node
// Could ffmpeg's FLAC encoder write the bundle's difference audio instead of
// our own (packages/fidelity/src/bundle/flac.ts)? Only if it gives the same
// bytes wherever the same samples are encoded. This encodes a set of 16-bit
// signals with every ffmpeg build given, each with its SIMD code and with
// `-cpuflags 0` (the C code, which builds without x86 assembly run), under a
// few argument sets, and compares the files byte for byte; decodes each
// distinct file with every build and compares the samples with the input; and
// times ours against an ffmpeg process per 2 s stereo signal (one per pair).
// A benchmark, run by hand; never a test. The results are in docs/report.md
// ("Difference audio: our FLAC encoder, not ffmpeg's").
//
//   node bench/flac-ffmpeg.mjs [--ffmpeg PATH]... [--runs DIR] [--repeat N] [--json FILE]
//
//   --ffmpeg  an ffmpeg to compare (repeatable); default: the npm @ffmpeg-installer build
//             and /usr/bin/ffmpeg, where present
//   --runs    a folder of generated runs (synth-manifest.json, one folder per site): the
//             difference of every slot against the baseline's is a signal too, as the bundle
//             writes it (first 2 s, normalised by the same rule). Default: fixtures/runs
//   --cpuflags  the encoders of each build, comma-separated: `simd` (what the build detects) or an
//             ffmpeg -cpuflags mask; default `simd,0` (0: the C code)
//   --repeat  encodes per timing (median; default 7)
//   --json    also write every result as JSON
//
// The signals are the ones packages/fidelity/test/bundle/flac.test.ts encodes (1-8
// channels, odd rates, lengths around the block size, full-scale extremes, noise, tones).
// Needs the built library (npx tsc -b packages/fidelity).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => pathToFileURL(path.join(root, 'packages/fidelity/dist', p)).href;
const { createPrng } = await import(dist('synth/prng.js'));
const { encodeFlac16 } = await import(dist('bundle/flac.js'));
const { differenceSamples } = await import(dist('bundle/audio-diff.js'));
const { audioNormalizationGain, AUDIO_DIFF_SECONDS } = await import(dist('bundle/assets-keys.js'));
const { extractAudio } = await import(dist('media/frames.js'));
const { resolveFfmpeg } = await import(dist('media/ffmpeg.js'));

const { values: args } = parseArgs({
  options: {
    ffmpeg: { type: 'string', multiple: true },
    runs: { type: 'string', default: path.join(root, 'fixtures/runs') },
    repeat: { type: 'string', default: '7' },
    cpuflags: { type: 'string', default: 'simd,0' },
    json: { type: 'string' },
  },
});
const repeat = Number(args.repeat);
const log = (line = '') => process.stderr.write(`${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

function defaultBuilds() {
  const found = [];
  try {
    found.push(createRequire(path.join(root, 'packages/fidelity/package.json'))('@ffmpeg-installer/ffmpeg').path);
  } catch {
    // Not installed.
  }
  if (existsSync('/usr/bin/ffmpeg')) found.push('/usr/bin/ffmpeg');
  return found;
}
const builds = (args.ffmpeg ?? defaultBuilds()).map((file) => {
  const line = execFileSync(file, ['-hide_banner', '-version'], { encoding: 'utf8' }).split('\n')[0];
  return { file, version: line.replace(/^ffmpeg version (\S+).*$/, '$1') };
});
if (builds.length === 0) throw new Error('no ffmpeg found: pass --ffmpeg PATH');
/** Each build with its SIMD code (`simd`: what it detects), and under each other `-cpuflags` mask asked for. */
const masks = args.cpuflags.split(',');
const configs = builds.flatMap((b) => masks.map((mask) => ({ ...b, mask, name: `${b.version}${mask === 'simd' ? '' : ` -cpuflags ${mask}`}` })));

// ---- The signals ----
const random = (seed) => createPrng(`flac-test-${seed}`);
const signal = (n, f) => Int16Array.from({ length: n }, (_, i) => f(i));
const noise = (n, seed, amplitude = 32768) => {
  const r = random(seed);
  return signal(n, () => Math.max(-32768, Math.min(32767, Math.floor(r() * 2 * amplitude) - amplitude)));
};
const sine = (n, rate, hz, amplitude, phase = 0) => signal(n, (i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate + phase)));
const B = 4096;
const signals = [];
const add = (name, channels, rate, group = 'test') => signals.push({ name, channels, rate, group });
{
  const n = 10_000;
  add('silence', [new Int16Array(n), new Int16Array(n)], 32000);
  add('constant + full-scale minimum', [signal(n, () => 1234), signal(n, () => -32768)], 48000);
  add('alternating extremes 44.1k', [signal(n, (i) => (i & 1 ? 32767 : -32768)), signal(n, (i) => (i & 1 ? -32768 : 32767))], 44100);
  add('square extremes, mono', [signal(n, (i) => ((i >> 3) & 1 ? 32767 : -32768))], 22050);
}
{
  const n = 20_000;
  add('white noise', [noise(n, 1), noise(n, 2)], 32000);
  add('two loud sines', [sine(n, 32000, 440, 30000), sine(n, 32000, 441, 20000, 1)], 32000);
  add('noise ±3 LSB', [noise(n, 3, 3), noise(n, 4, 3)], 32000);
  const left = sine(n, 48000, 1000, 32767);
  add('L ≈ R (side channel)', [left, signal(n, (i) => Math.max(-32768, left[i] - 1 + (i % 3)))], 48000);
  add('alternating extremes 48k', [signal(n, (i) => (i % 2 ? 32767 : -32768)), signal(n, (i) => (i % 2 ? -32768 : 32767))], 48000);
}
for (const count of [1, 3, 6, 8]) {
  add(`${count} channel${count > 1 ? 's' : ''}`, Array.from({ length: count }, (_, c) => (c % 2 ? noise(5000, 10 + c, 200) : sine(5000, 44100, 200 * (c + 1), 8000))), 44100);
}
for (const n of [1, 2, 15, 16, 17, 255, 256, 257, B - 1, B, B + 1, 3 * B + 100]) add(`${n} samples`, [noise(n, n, 1000), sine(n, 32000, 300, 10000)], 32000);
add('1 sample, mono', [noise(1, 7)], 32000);
add('2 s sine + noise 32k', [sine(64_000, 32000, 440, 12000), noise(64_000, 99, 300)], 32000);
for (const rate of [32000, 44100, 48000, 22050, 8000, 96000, 12345, 11025, 1, 1_048_575]) {
  add(`${rate} Hz`, [sine(5000, rate, rate / 50, 9000), noise(5000, rate, 50)], rate);
}
add('70 000 samples', [noise(70_000, 5, 40), sine(70_000, 32000, 440, 5000)], 32000);
{
  const r = random(2026);
  const n = 3 * B + 1000;
  const left = signal(n, (i) => {
    if (i < B) return Math.round(9000 * Math.sin(i / 9) + 2500 * Math.sin(i / 2.7) + (r() - 0.5) * 60);
    if (i < 2 * B) return 77;
    if (i < 3 * B) return Math.floor(r() * 65536) - 32768;
    return 3 * i - 40000;
  });
  add('pinned-digest signal', [left, signal(n, (i) => Math.max(-32768, Math.min(32767, left[i] + (i % 5) - 2)))], 32000);
}
{
  const n = 64_000;
  add('2 s noise ±3 LSB', [noise(n, 11, 3), noise(n, 12, 3)], 32000);
  const r = random(13);
  add('2 s music-like', [0, 1].map((c) => signal(n, (i) => Math.round(3000 * Math.sin(i / (20 + c)) + 1500 * Math.sin(i / 7.3) + 800 * Math.sin(i / 3.1 + c) + (r() - 0.5) * 40))), 32000);
  add('2 s white noise', [noise(n, 14), noise(n, 15)], 32000);
}

/** The difference audio of every slot of every candidate run against the baseline's, as the bundle writes it. */
async function runSignals(dir) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'synth-manifest.json'), 'utf8'));
  const baseline = manifest.runs.find((r) => r.role === 'baseline');
  for (const run of manifest.runs.filter((r) => r.role !== 'baseline')) {
    const media = path.join(dir, run.folder, 'media');
    for (const name of readdirSync(media).filter((f) => f.endsWith('.mp4')).sort()) {
      const a = path.join(dir, baseline.folder, 'media', name);
      const b = path.join(dir, run.folder, 'media', name);
      if (!existsSync(a)) continue;
      const info = JSON.parse(execFileSync((await resolveFfmpeg()).ffprobe.path, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=sample_rate,channels', '-of', 'json', b], { encoding: 'utf8' })).streams[0];
      if (!info) continue;
      const rate = Number(info.sample_rate);
      const layout = { channels: info.channels, maxSamples: rate * AUDIO_DIFF_SECONDS };
      const [base, cand] = [await extractAudio(a, layout), await extractAudio(b, layout)];
      const peaks = base.map((c, ch) => ({ max_abs_diff: c.reduce((m, v, i) => Math.max(m, Math.abs(cand[ch][i] - v)), 0) }));
      if (peaks.every((p) => p.max_abs_diff === 0)) continue;
      const gain = audioNormalizationGain({ channels: peaks });
      add(`${run.site} ${name.replace('.mp4', '')}${gain === null ? '' : ' (normalised)'}`, differenceSamples(base, cand, gain ?? 1), rate, 'runs');
    }
  }
}
if (existsSync(path.join(args.runs, 'synth-manifest.json'))) await runSignals(args.runs);

// ---- The encoder arguments ----
/** Every encoder setting that could differ between versions, pinned (level 5's values, 4096-sample blocks). */
const PINNED = ['-compression_level', '5', '-frame_size', '4096', '-min_partition_order', '0', '-max_partition_order', '8', '-ch_mode', 'auto', '-exact_rice_parameters', '0', '-multi_dim_quant', '0'];
const ARG_SETS = {
  'bitexact only': [],
  'levinson (pinned)': [...PINNED, '-lpc_type', 'levinson', '-min_prediction_order', '1', '-max_prediction_order', '8', '-prediction_order_method', 'estimation', '-lpc_coeff_precision', '15'],
  'fixed (pinned)': [...PINNED, '-lpc_type', 'fixed', '-min_prediction_order', '0', '-max_prediction_order', '4'],
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fidelity-flac-bench-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const sha = (b) => createHash('sha256').update(b).digest('hex');

function interleave(channels) {
  const n = channels[0].length;
  const buf = Buffer.alloc(n * channels.length * 2);
  for (let i = 0; i < n; i++) for (let c = 0; c < channels.length; c++) buf.writeInt16LE(channels[c][i], (i * channels.length + c) * 2);
  return buf;
}
function encodeArgs(config, set, pcmFile, sig, outFile) {
  return [
    '-hide_banner', '-nostdin', '-v', 'error', ...(config.mask === 'simd' ? [] : ['-cpuflags', config.mask]),
    '-f', 's16le', '-ar', String(sig.rate), '-ac', String(sig.channels.length), '-i', pcmFile,
    // No metadata, no version strings, no padding block; a seekable file, so that the muxer
    // can write STREAMINFO's MD5, sample count and frame sizes at the end (a pipe leaves them 0).
    '-map_metadata', '-1', '-fflags', '+bitexact', '-flags', '+bitexact', '-threads', '1',
    '-c:a', 'flac', ...ARG_SETS[set], '-metadata_header_padding', '0', '-f', 'flac', '-y', outFile,
  ];
}
function decode(file, ffmpeg) {
  const r = spawnSync(ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', '-err_detect', 'crccheck+bitstream+buffer+explode', '-i', file, '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'], { maxBuffer: 1 << 28 });
  return r.status === 0 && r.stderr.length === 0 ? r.stdout : null;
}
/** The metadata blocks: type, length, and the Vorbis comment's vendor string. */
function metadataBlocks(flac) {
  const blocks = [];
  for (let at = 4; ; ) {
    const type = flac[at] & 0x7f;
    const len = flac.readUIntBE(at + 1, 3);
    const names = { 0: 'STREAMINFO', 1: 'PADDING', 4: 'VORBIS_COMMENT' };
    let what = `${names[type] ?? type}(${len})`;
    if (type === 4) {
      const vlen = flac.readUInt32LE(at + 4);
      what += ` vendor "${flac.toString('utf8', at + 8, at + 8 + vlen)}", ${flac.readUInt32LE(at + 8 + vlen)} comments`;
    }
    blocks.push(what);
    if (flac[at] & 0x80) break;
    at += 4 + len;
  }
  return blocks.join(', ');
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

log(`builds: ${builds.map((b) => `${b.version} (${b.file})`).join('; ')}`);
log(`${signals.length} signals (${signals.filter((s) => s.group === 'runs').length} from ${args.runs}), ${Object.keys(ARG_SETS).length} argument sets, ${configs.length} encoders`);
const results = [];
const headers = new Set();
for (const [k, sig] of signals.entries()) {
  const pcm = interleave(sig.channels);
  const pcmFile = path.join(tmp, `s${k}.pcm`);
  writeFileSync(pcmFile, pcm);
  const ours = Buffer.from(encodeFlac16(sig.channels, sig.rate));
  const row = { name: sig.name, group: sig.group, channels: sig.channels.length, rate: sig.rate, samples: sig.channels[0].length, pcmBytes: pcm.length, oursBytes: ours.length, sets: {} };
  for (const set of Object.keys(ARG_SETS)) {
    const encodes = configs.map((config, i) => {
      const file = path.join(tmp, `s${k}-${i}.flac`);
      const r = spawnSync(config.file, encodeArgs(config, set, pcmFile, sig, file), { encoding: 'utf8' });
      if (r.status !== 0) return { config: config.name, refused: r.stderr.trim().split('\n')[0].replace(/^\[flac @ 0x[0-9a-f]+\] /, '') };
      const bytes = readFileSync(file);
      return { config: config.name, file, bytes: bytes.length, sha256: sha(bytes), header: metadataBlocks(bytes) };
    });
    const made = encodes.filter((e) => !e.refused);
    const distinct = [...new Set(made.map((e) => e.sha256))];
    // Every distinct file, decoded by every build (CRC checks on), must give back the input.
    const exact = distinct.every((h) => {
      const file = made.find((e) => e.sha256 === h).file;
      return builds.every((b) => decode(file, b.file)?.equals(pcm) === true);
    });
    for (const e of made) headers.add(`${set}: ${e.header}`);
    row.sets[set] = {
      identical: made.length === configs.length && distinct.length === 1,
      refused: encodes.filter((e) => e.refused).map((e) => `${e.config}: ${e.refused}`),
      distinct: distinct.length,
      decodesExact: made.length > 0 && exact,
      bytes: made[0]?.bytes ?? null,
      encodes: encodes.map(({ file, ...e }) => e),
    };
  }
  results.push(row);
  const cells = Object.entries(row.sets).map(([set, r]) => `${set}: ${r.refused.length ? 'refused' : r.identical ? 'same' : `${r.distinct} versions`}${r.decodesExact || r.refused.length ? '' : ' NOT EXACT'}`);
  log(`${sig.name.padEnd(34)} ${cells.join(' | ')}`);
}

// ---- Timing: one pair's difference file (2 s of stereo), ours against one ffmpeg process each ----
const timed = [];
for (const sig of signals.filter((s) => s.channels.length === 2 && s.channels[0].length >= 2 * 32000 && s.channels[0].length === 2 * s.rate)) {
  const pcmFile = path.join(tmp, 'timed.pcm');
  writeFileSync(pcmFile, interleave(sig.channels));
  const t = { name: sig.name, ours: [], ffmpeg: Object.fromEntries(builds.map((b) => [b.version, []])) };
  for (let i = 0; i < repeat; i++) {
    let t0 = performance.now();
    encodeFlac16(sig.channels, sig.rate);
    t.ours.push(performance.now() - t0);
    for (const b of builds) {
      t0 = performance.now();
      // What the bundle writer would do: write the samples, run ffmpeg, read its file.
      writeFileSync(pcmFile, interleave(sig.channels));
      spawnSync(b.file, encodeArgs({ ...b, mask: 'simd' }, 'levinson (pinned)', pcmFile, sig, path.join(tmp, 'timed.flac')));
      readFileSync(path.join(tmp, 'timed.flac'));
      t.ffmpeg[b.version].push(performance.now() - t0);
    }
  }
  timed.push(t);
}

// ---- Report ----
const sets = Object.keys(ARG_SETS);
const groups = [...new Set(results.map((r) => r.group))];
out(`ffmpeg builds: ${builds.map((b) => b.version).join(', ')}; each ${masks.map((m) => (m === 'simd' ? 'with its SIMD code' : `with -cpuflags ${m}`)).join(', ')} (${configs.length} encoders).`);
out(`${results.length} signals: ${groups.map((g) => `${results.filter((r) => r.group === g).length} ${g === 'test' ? 'from flac.test.ts' : `differences of generated runs (${path.relative(root, args.runs) || args.runs})`}`).join(', ')}.`);
out();
out(`| argument set | same bytes from all ${configs.length} | differ | refused | decode exact | bytes, all signals (ours: ${results.reduce((s, r) => s + r.oursBytes, 0)}) | bytes, run differences (ours: ${results.filter((r) => r.group === 'runs').reduce((s, r) => s + r.oursBytes, 0)}) |`);
out('| --- | --- | --- | --- | --- | --- | --- |');
for (const set of sets) {
  const rs = results.map((r) => r.sets[set]);
  const made = results.filter((r) => r.sets[set].bytes !== null);
  const bytes = (rows) => rows.reduce((s, r) => s + r.sets[set].bytes, 0);
  const oursOf = (rows) => rows.reduce((s, r) => s + r.oursBytes, 0);
  const runs = made.filter((r) => r.group === 'runs');
  out(`| ${set} | ${rs.filter((r) => r.identical).length} | ${rs.filter((r) => !r.identical && !r.refused.length).length} | ${rs.filter((r) => r.refused.length).length} | ${rs.filter((r) => r.decodesExact).length} of ${made.length} | ${bytes(made)} (ours ${oursOf(made)} for these) | ${runs.length ? `${bytes(runs)}` : '-'} |`);
}
out();
for (const set of sets) {
  const differ = results.filter((r) => !r.sets[set].identical && !r.sets[set].refused.length);
  if (!differ.length) continue;
  out(`${set}: differ on ${differ.map((r) => r.name).join(', ')}.`);
  const groupsBy = new Map();
  for (const r of differ) {
    const key = r.sets[set].encodes.map((e) => r.sets[set].encodes.findIndex((f) => f.sha256 === e.sha256)).join(',');
    groupsBy.set(key, (groupsBy.get(key) ?? 0) + 1);
  }
  for (const [key, n] of groupsBy) {
    const idx = key.split(',').map(Number);
    const classes = [...new Set(idx)].map((c) => configs.filter((_, i) => idx[i] === c).map((x) => x.name).join(' = '));
    out(`  ${n} signal(s): ${classes.map((c) => `[${c}]`).join(' vs ')}`);
  }
}
for (const set of sets) {
  const refused = results.filter((r) => r.sets[set].refused.length);
  if (refused.length) out(`${set}: refused ${refused.map((r) => `${r.name} (${r.sets[set].refused[0].replace(/^[^:]+: /, '')})`).join(', ')}.`);
}
out();
out('Metadata blocks written:');
for (const h of headers) out(`  ${h}`);
out();
out(`Per-signal bytes (PCM / ours / ${sets.join(' / ')}):`);
for (const r of results) out(`  ${r.name}: ${r.pcmBytes} / ${r.oursBytes} / ${sets.map((s) => r.sets[s].bytes ?? '-').join(' / ')}`);
out();
out(`Encoding 2 s of stereo, median of ${repeat} (ms): ours in-process | ${builds.map((b) => `ffmpeg ${b.version} (spawn, file in and out)`).join(' | ')}`);
for (const t of timed) out(`  ${t.name}: ${median(t.ours).toFixed(1)} | ${builds.map((b) => median(t.ffmpeg[b.version]).toFixed(1)).join(' | ')}`);
if (args.json) writeFileSync(args.json, `${JSON.stringify({ builds, configs: configs.map((c) => c.name), argSets: ARG_SETS, results, timed }, null, 1)}\n`);
