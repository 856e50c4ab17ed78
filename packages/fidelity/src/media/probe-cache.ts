/**
 * Probes kept for the life of the process, by the probed bytes' SHA-256 and
 * the ffprobe that read them: a file whose sealed bytes this process has
 * probed with the same ffprobe binary is not probed again, by any command.
 * It is the one place that does so: within a command (a baseline clip paired
 * with several candidates, verify's probe handed to measuring: archive/
 * run-media.ts, pool/pool.ts, pool/probe-pair.ts) and from one
 * command to the next in one process (a library user who verifies runs and
 * then compares them, a merge after the shards that ran in the same process,
 * a test suite). The pool's threads do not share it: the pool (pool/pool.ts)
 * hands them what it holds and keeps what they probe, from the main thread.
 *
 * A probe is a function of the bytes and the ffprobe binary (and our own
 * reading of the edit lists, from the same bytes), so a kept probe is the
 * one a new run would give. The SHA-256 is the caller's: a sealed file's,
 * checked against its bytes while the run was verified. Only probes that
 * succeeded are kept (a failure is reported, and blamed on its side, every
 * time), each handed out as its own copy (measuring fills in a probe's
 * audio facts), and the cache is bounded by the frame timestamps it holds.
 */
import { statSync } from 'node:fs';

/**
 * What the cache reads of a probe (probe.ts's MediaProbe, which imports this module: named here by
 * its shape, not imported, so the two make no cycle): its path, and its frame timestamps for the bound.
 */
interface Probe {
  file: string;
  video: { pts: readonly number[] } | null;
}

/**
 * The most frame timestamps the kept probes hold together (8 bytes each: 32 MiB), about 37 hours of 30 fps
 * video. A command over more than that probes its oldest files again when it meets them again: the same
 * probes, more ffprobe runs, bounded memory.
 */
const MAX_TIMESTAMPS = 4_000_000;

/** Oldest first (a Map keeps insertion order): the first entry is the one to drop. */
const kept = new Map<string, Probe>();
let timestamps = 0;

const size = (probe: Probe): number => (probe.video?.pts.length ?? 0) + 1;

/**
 * The key of a file's bytes read by this ffprobe: the binary's path and its file identity (a
 * binary replaced or rewritten at the same path, a test's wrapper script say, is another ffprobe).
 * null when the binary cannot be looked at: nothing is kept or found then.
 */
function keyOf(ffprobe: string, sha256: string): string | null {
  try {
    const s = statSync(ffprobe, { bigint: true });
    return `${sha256}\0${ffprobe}\0${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

/** A copy of the kept probe of these bytes by this ffprobe, with `file` as its path; undefined when none is kept. */
export function keptProbe<P extends Probe>(ffprobe: string, sha256: string, file: string): P | undefined {
  const key = keyOf(ffprobe, sha256);
  const probe = key === null ? undefined : kept.get(key);
  if (!probe) return undefined;
  // Used again: it moves to the end, last to be dropped.
  kept.delete(key!);
  kept.set(key!, probe);
  // Only keepProbe<P> puts entries here, and every caller keeps one type (MediaProbe).
  return { ...structuredClone(probe), file } as P;
}

/** Keeps a copy of a probe that succeeded, dropping the oldest ones past the bound. */
export function keepProbe<P extends Probe>(ffprobe: string, sha256: string, probe: P): void {
  const key = keyOf(ffprobe, sha256);
  if (key === null || size(probe) > MAX_TIMESTAMPS) return;
  const old = kept.get(key);
  if (old) {
    kept.delete(key);
    timestamps -= size(old);
  }
  kept.set(key, structuredClone(probe));
  timestamps += size(probe);
  for (const [k, p] of kept) {
    if (timestamps <= MAX_TIMESTAMPS) break;
    kept.delete(k);
    timestamps -= size(p);
  }
}

/** Drops every kept probe of these bytes (by any ffprobe): a file found changed after it was probed may have been probed as other bytes. */
export function forgetProbes(sha256: string): void {
  for (const [key, probe] of kept) {
    if (!key.startsWith(`${sha256}\0`)) continue;
    kept.delete(key);
    timestamps -= size(probe);
  }
}

/** How many probes are kept (for tests). */
export function keptProbeCount(): number {
  return kept.size;
}
