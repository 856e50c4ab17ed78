/**
 * Where the browser tests get their bundle. Until compare() writes real
 * bundles end to end, this builds one by hand: the committed fixture MP4s
 * (or, before those exist, two small clips made here with the resolved
 * ffmpeg), a hand-made report validated by the zod schema, the real per-pair
 * assets and both real pages. Swap `makeReportBundle` for a compare() call
 * and the tests stay as they are.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makePairAssets } from '../../packages/fidelity/src/bundle/assets.js';
import { renderReport } from '../../packages/fidelity/src/bundle/html.js';
import { PAGE_FILE } from '../../packages/fidelity/src/bundle/i18n.js';
import { resolveFfmpeg } from '../../packages/fidelity/src/media/ffmpeg.js';
import { Report } from '../../packages/fidelity/src/schemas/report.js';
import { sampleReport } from '../../packages/fidelity/test/bundle/html-fixture.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ReportBundle {
  /** The bundle folder. */
  dir: string;
  report: Report;
  /** Absolute paths of the English and Chinese pages. */
  pages: { en: string; zh: string };
  /** Origins the pages may link to (the runs' servers); never fetched by the tests. */
  servers: string[];
}

interface Clip {
  file: string;
  width: number;
  height: number;
  frames: number;
  audio: { sampleRate: number; channels: number; samples: number } | null;
}

/** The first measurement slot that both committed fixture runs have media for, if they exist yet. */
async function committedClips(): Promise<[string, string] | null> {
  const dirs = ['h200', 'b200'].map((site) => path.join(ROOT, 'fixtures', 'runs', site, 'media'));
  if (!dirs.every((d) => existsSync(d))) return null;
  const [a, b] = await Promise.all(dirs.map(async (d) => (await readdir(d)).filter((f) => f.startsWith('measurement-') && f.endsWith('.mp4')).sort()));
  const shared = a!.find((f) => b!.includes(f));
  return shared ? [path.join(dirs[0]!, shared), path.join(dirs[1]!, shared)] : null;
}

async function madeClips(dir: string, ffmpeg: string): Promise<[string, string]> {
  const out: string[] = [];
  for (const [name, extra] of [['baseline.mp4', 'null'], ['candidate.mp4', 'noise=alls=12:allf=t+u']] as const) {
    const file = path.join(dir, name);
    await run(ffmpeg, [
      '-y', '-hide_banner', '-loglevel', 'error',
      '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=24:duration=1',
      '-f', 'lavfi', '-i', 'aevalsrc=0.4*sin(440*2*PI*t)|0.3*sin(660*2*PI*t):s=16000:d=1',
      '-vf', extra, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '48k', '-shortest', '-movflags', '+faststart', file,
    ]);
    out.push(file);
  }
  return [out[0]!, out[1]!];
}

async function probe(file: string, ffprobe: string): Promise<Clip> {
  const { stdout } = await run(ffprobe, ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,width,height,nb_read_frames,sample_rate,channels,duration_ts,time_base', '-of', 'json', file]);
  const streams = (JSON.parse(stdout) as { streams: Array<Record<string, string | number>> }).streams;
  const v = streams.find((s) => s.codec_type === 'video');
  const a = streams.find((s) => s.codec_type === 'audio');
  if (!v) throw new Error(`${file} has no video stream`);
  return {
    file,
    width: Number(v.width),
    height: Number(v.height),
    frames: Number(v.nb_read_frames),
    audio: a ? { sampleRate: Number(a.sample_rate), channels: Number(a.channels), samples: Number(a.duration_ts) } : null,
  };
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}

export async function makeReportBundle(dir: string): Promise<ReportBundle> {
  const tools = await resolveFfmpeg();
  const work = path.join(dir, '..', `${path.basename(dir)}-clips`);
  await mkdir(work, { recursive: true });
  await mkdir(path.join(dir, 'media'), { recursive: true });
  const [baseFile, candFile] = (await committedClips()) ?? (await madeClips(work, tools.ffmpeg.path));
  const base = await probe(baseFile, tools.ffprobe.path);
  const cand = await probe(candFile, tools.ffprobe.path);
  const media: string[] = [];
  for (const clip of [base, cand]) {
    const rel = `media/${await sha256(clip.file)}.mp4`;
    await copyFile(clip.file, path.join(dir, ...rel.split('/')));
    media.push(rel);
  }
  const report = sampleReport({
    width: base.width,
    height: base.height,
    frames: Math.min(base.frames, cand.frames),
    audio: base.audio && cand.audio ? { ...base.audio, samples: Math.min(base.audio.samples, cand.audio.samples) } : null,
    baselineMedia: media[0]!,
    candidateMedia: media[1]!,
  });

  for (const r of report.runs) {
    const src = path.join(dir, ...r.sources_dir.split('/'));
    await mkdir(src, { recursive: true });
    for (const name of ['ci.json', 'plan.json', 'run.json', 'original-SHA256SUMS']) await writeFile(path.join(src, name), `${name} of run ${r.run_id}\n`);
    // The pages link each run's power audit sidecar; a stand-in is enough for the link checks.
    if (r.power_audit) {
      await mkdir(path.dirname(path.join(dir, ...r.power_audit.split('/'))), { recursive: true });
      await writeFile(path.join(dir, ...r.power_audit.split('/')), `${JSON.stringify({ run_id: r.run_id })}\n`);
    }
  }
  const comparison = report.comparisons[0]!;
  for (const pair of comparison.pairs) {
    if (!pair.video) continue;
    const prefix = `pairs/0/${pair.slot_id}`;
    await mkdir(path.join(dir, ...prefix.split('/')), { recursive: true });
    await writeFile(path.join(dir, ...prefix.split('/'), 'frames.csv'), `frame,ssim\n${pair.video.ssim.per_frame.map((v, i) => `${i},${v}`).join('\n')}\n`);
    pair.files = { frames_csv: `${prefix}/frames.csv` };
    const at = (rel: string): string => path.join(dir, ...rel.split('/'));
    Object.assign(pair.files, await makePairAssets({ pair, baselinePath: at(pair.baseline_media!), candidatePath: at(pair.candidate_media!), outDir: dir, prefix }));
  }
  await writeFile(path.join(dir, 'pairs', '0', 'frames.csv'), 'slot_id,frame,ssim\n');
  comparison.files = { frames_csv: 'pairs/0/frames.csv' };

  const written = Report.parse(report);
  await writeFile(path.join(dir, 'report.json'), `${JSON.stringify(written, null, 2)}\n`);
  const pages = { en: path.join(dir, PAGE_FILE.en), zh: path.join(dir, PAGE_FILE.zh) };
  await writeFile(pages.en, renderReport(written, 'en'));
  await writeFile(pages.zh, renderReport(written, 'zh'));
  return { dir, report: written, pages, servers: [...new Set(written.runs.map((r) => new URL(r.server_url).origin))] };
}
