/**
 * Small run archives built from scratch for the archive tests: a valid run as
 * plain objects (a draft), mutated by each test to break exactly one rule,
 * then written as a folder, a zip (yazl) or a tar.gz (tar-stream). The seal
 * and plan hash are computed here with node:crypto, independently of the
 * code under test. "Media" are a few bytes: verification never decodes them.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import yazl from 'yazl';

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/* eslint-disable @typescript-eslint/no-explicit-any */
export interface Draft {
  ci: any;
  plan: any;
  run: any;
  /** Every file other than ci/plan/run.json and SHA256SUMS, by path (media, telemetry, strays). */
  files: Record<string, Buffer | string>;
  /** Raw bytes instead of JSON.stringify of the objects above (for invalid JSON, BOMs...). */
  raw: { ci?: Buffer | string; plan?: Buffer | string; run?: Buffer | string };
  /** When false, run.plan_sha256 is left as the draft has it instead of the hash of plan.json. */
  autoPlanSha: boolean;
  /** Rewrites the computed SHA256SUMS lines; return null to leave SHA256SUMS out. */
  seal: (lines: string[]) => string[] | null;
  /** When set, SHA256SUMS holds exactly this text. */
  sealText?: string;
  /** Files left out of the archive (and of the seal), e.g. "ci.json". */
  omit: string[];
}

export const CASES = [
  { case_id: 'spoken-greeting-s11', prompt: 'A person says hello to the camera.', seed: 11 },
  { case_id: 'spoken-greeting-s29', prompt: 'A person says hello to the camera.', seed: 29 },
];

export function media(slot: string): Buffer {
  return Buffer.from(`not really an mp4 for ${slot}\n`);
}

/** 1 warmup, 2 repetitions x 2 cases; measurement-r001-c001 failed. */
export function validDraft(): Draft {
  const records: any[] = [];
  const record = (slot_id: string, kind: string, c: number, repetition: number, failed = false) => ({
    slot_id,
    kind,
    case_id: CASES[c]!.case_id,
    prompt: CASES[c]!.prompt,
    seed: CASES[c]!.seed,
    repetition,
    status: failed ? 'failed' : 'ok',
    ...(failed ? { error: 'request timed out after 600 s' } : {}),
    media: failed ? null : `media/${slot_id}.mp4`,
    latency_s: failed ? null : 60 + records.length,
    window: failed ? null : { start_unix: 1764450010 + records.length * 100, end_unix: 1764450070 + records.length * 100 },
    server_timing: failed
      ? null
      : { clock_id: 'linux:boot-1:CLOCK_MONOTONIC', http_received_ns: 1, http_accepted_ns: 2, scheduler_dispatch_ns: 3, forward_finished_ns: 4, media_ready_ns: 5 },
  });
  records.push(record('warmup-000', 'warmup', 0, 0));
  records.push(record('measurement-r000-c000', 'measurement', 0, 0));
  records.push(record('measurement-r000-c001', 'measurement', 1, 0));
  records.push(record('measurement-r001-c000', 'measurement', 0, 1));
  records.push(record('measurement-r001-c001', 'measurement', 1, 1, true));
  const files: Record<string, Buffer | string> = {
    'telemetry/gpu_metrics.csv': 'timestamp, index, power.draw [W]\n2026/11/29 21:40:01.123, 0, 412.34 W\n',
  };
  for (const r of records) if (r.media) files[r.media] = media(r.slot_id);
  return {
    ci: {
      schema_version: 1,
      server_url: 'https://github.com',
      repository: 'example-org/video-serving-bench',
      workflow: 'h3-serving',
      job: 'H3 video H200 smoke',
      run_id: 30054883436,
      run_attempt: 1,
      head_sha: 'c2f27fe453ef613f4eb0f8d356a6dbd80ffed7dd',
      artifact: { id: 4242001, name: 'h3-video-30054883436-1' },
      hardware: { gpu_model: 'H200', gpus_allocated: 8, gpus_participating: 2 },
      runtime: { attention_backend: 'flash-attention', dtype: 'bf16', topology: 'TP2/Ulysses2' },
    },
    plan: {
      plan_id: 'h3-cross-hardware-test-v1',
      model: { id: 'MiniMaxAI/MiniMax-H3', revision: '42ed227e0000000000000000000000000000beef' },
      video: { width: 64, height: 48, fps: 24, frames: 12 },
      audio: { sample_rate: 32000, channels: 2 },
      warmup_runs: 1,
      repetitions: 2,
      cases: CASES.map((c) => ({ ...c })),
    },
    run: {
      run_id: 30054883436,
      run_attempt: 1,
      plan_sha256: '',
      expected_gpu_count: 2,
      measurement_window: { start_unix: 1764450000.0, end_unix: 1764451260.5 },
      records,
    },
    files,
    raw: {},
    autoPlanSha: true,
    seal: (lines) => lines,
    omit: [],
  };
}

/** The files of a draft, by path, SHA256SUMS included (sorted, as sha256sum over a sorted list writes it). */
export function render(draft: Draft): Map<string, Buffer> {
  const json = (v: unknown) => Buffer.from(`${JSON.stringify(v, null, 2)}\n`);
  const bytes = (v: Buffer | string) => (typeof v === 'string' ? Buffer.from(v) : v);
  const plan = draft.raw.plan !== undefined ? bytes(draft.raw.plan) : json(draft.plan);
  const run = draft.autoPlanSha ? { ...draft.run, plan_sha256: sha256(plan) } : draft.run;
  const out = new Map<string, Buffer>();
  out.set('ci.json', draft.raw.ci !== undefined ? bytes(draft.raw.ci) : json(draft.ci));
  out.set('plan.json', plan);
  out.set('run.json', draft.raw.run !== undefined ? bytes(draft.raw.run) : json(run));
  for (const [p, v] of Object.entries(draft.files)) out.set(p, bytes(v));
  for (const p of draft.omit) out.delete(p);
  const lines = draft.seal([...out.keys()].sort().map((p) => `${sha256(out.get(p)!)}  ${p}`));
  if (draft.sealText !== undefined) out.set('SHA256SUMS', Buffer.from(draft.sealText));
  else if (lines !== null) out.set('SHA256SUMS', Buffer.from(lines.map((l) => `${l}\n`).join('')));
  return out;
}

export async function tempRoot(label: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `fidelity-archive-test-${label}-`));
}

export async function writeDir(files: Map<string, Buffer>, dir: string): Promise<string> {
  for (const [p, b] of files) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
    await writeFile(path.join(dir, p), b);
  }
  return dir;
}

export interface ZipItem {
  name: string;
  data?: Buffer;
  /** Unix mode bits including the file type (0o120777 makes a symlink entry). */
  mode?: number;
  directory?: boolean;
}

/**
 * yazl refuses hostile names (absolute, ".."), as a good writer should; to
 * build them anyway, an entry is written under a same-length stand-in name
 * and the bytes are swapped afterwards (names are not covered by the CRC).
 */
export async function writeZip(items: ZipItem[], file: string): Promise<string> {
  const zip = new yazl.ZipFile();
  const swaps: [Buffer, Buffer][] = [];
  items.forEach((item, i) => {
    let name = item.name;
    if (/^[/\\]|^[A-Za-z]:|(^|[/\\])\.\.([/\\]|$)|\\/.test(name)) {
      const standIn = `Z${String(i).padStart(name.length - 1, 'q')}`.slice(0, name.length);
      swaps.push([Buffer.from(standIn), Buffer.from(name)]);
      name = standIn;
    }
    const opts = { mtime: new Date(0), ...(item.mode !== undefined ? { mode: item.mode } : {}) };
    if (item.directory) zip.addEmptyDirectory(name, opts);
    else zip.addBuffer(item.data ?? Buffer.alloc(0), name, opts);
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const out: Buffer = Buffer.concat(chunks);
  for (const [from, to] of swaps) replaceAll(out, from, to);
  await writeFile(file, out);
  return file;
}

/** Same-length replacement, in place. */
function replaceAll(buf: Buffer, from: Buffer, to: Buffer): void {
  let at = buf.indexOf(from);
  while (at >= 0) {
    to.copy(buf, at);
    at = buf.indexOf(from, at + to.length);
  }
}

export function zipItems(files: Map<string, Buffer>, folder = ''): ZipItem[] {
  return [...files].map(([name, data]) => ({ name: folder + name, data }));
}

export interface TarItem {
  name: string;
  data?: Buffer;
  type?: 'file' | 'symlink' | 'link' | 'directory' | 'fifo';
  linkname?: string;
}

export async function writeTarGz(items: TarItem[], file: string): Promise<string> {
  const tar = pack();
  const done = pipeline(tar as unknown as NodeJS.ReadableStream, createGzip(), createWriteStream(file));
  for (const item of items) {
    const header = { name: item.name, type: item.type ?? 'file', mtime: new Date(0), ...(item.linkname ? { linkname: item.linkname } : {}) };
    await new Promise<void>((resolve, reject) => {
      tar.entry(header, item.data ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
    });
  }
  tar.finalize();
  await done;
  return file;
}

export function tarItems(files: Map<string, Buffer>, folder = ''): TarItem[] {
  return [...files].map(([name, data]) => ({ name: folder + name, data }));
}

export { readFile, rm, symlink, writeFile, mkdir };
