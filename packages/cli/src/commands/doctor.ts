import { defaultThreadCount, ffmpegAdvice, resolveFfmpeg, TOOL_VERSION } from 'media-fidelity';
import { printJson, reportFailure } from '../io.js';
import type { CommandArgs } from './types.js';

/** `fidelity doctor`: what it does once its arguments are parsed; the command table (index.ts) loads this module then. */
export async function runCommand({ values, io }: CommandArgs): Promise<number> {
  const json = Boolean(values.json);
  try {
    const tools = await resolveFfmpeg();
    const threads = defaultThreadCount();
    const warnings = ffmpegAdvice(tools);
    const doc = { ok: true, tool: { name: 'fidelity', version: TOOL_VERSION }, node: process.version, ffmpeg: tools.ffmpeg, ffprobe: tools.ffprobe, warnings, threads };
    if (json) printJson(io, doc);
    else {
      io.out(`fidelity ${TOOL_VERSION} on Node ${process.version}\n`);
      for (const b of [tools.ffmpeg, tools.ffprobe]) {
        io.out(`${b.kind.padEnd(8)} ${b.path}\n         from: ${b.source}\n         ${b.version}\n         sha256: ${b.sha256}\n`);
      }
      io.out(`threads  ${threads}\n`);
      // Advice, not failure: the pinned npm pair keeps reports comparable across machines.
      for (const w of warnings) io.out(`warning  ${w.message}\n`);
    }
    return 0;
  } catch (error) {
    return reportFailure(io, error, json);
  }
}
