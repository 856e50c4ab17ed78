/**
 * The value-by-value comparison of two JSON trees. It knows nothing about
 * reports: diff.ts says which subtrees to walk and what is excluded. Arrays
 * of objects are matched by a key field when every element has a unique one
 * (`check`, `name`, `slot_id`, `case_id`, `stage`, `channel`, `index`, or
 * run id and attempt), else by position; a per-frame series (`*per_frame`)
 * is compared frame by frame and reported as one change; any other array of
 * plain values is compared as a whole.
 */

/** How far two numbers may be apart and still count as equal: |a - b| <= abs, or <= rel x max(|a|, |b|). Both 0: exact. */
export interface Tolerance {
  abs: number;
  rel: number;
}

/** A per-frame series that differs: how many frames, and the first that differs (the change itself names the frame that moved most). */
export interface SeriesDifference {
  frames_old: number;
  frames_new: number;
  /** Frames (of those both sides have) whose values differ. */
  differing: number;
  first_frame: number;
}

/** What the walk reports, by path relative to the subtree it was given. */
export interface WalkSink {
  change(path: string, old: unknown, now: unknown, delta: number | null, series?: SeriesDifference): void;
  oneSided(path: string, side: 'old' | 'new', value: unknown): void;
  /** Counts every leaf compared (a series counts its frames). */
  counted(n: number): void;
}

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPlain = (v: Json): boolean => v === null || typeof v !== 'object';

export function sameNumber(a: number, b: number, tol: Tolerance): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const d = Math.abs(a - b);
  return d <= tol.abs || d <= tol.rel * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * new - old for two numbers, else null. Also null when the difference is beyond the largest
 * double (-1e308 against 1e308): a delta is a finite number or nothing, never Infinity, which
 * JSON cannot carry (it would print as null there and as Infinity in text).
 */
export function numberDelta(old: Json, now: Json): number | null {
  if (typeof old !== 'number' || typeof now !== 'number') return null;
  const d = now - old;
  return Number.isFinite(d) ? d : null;
}

function samePlain(a: Json, b: Json, tol: Tolerance): boolean {
  if (typeof a === 'number' && typeof b === 'number') return sameNumber(a, b, tol);
  return a === b;
}

// A check's name first: `cases[].worst` entries also carry a slot_id, which two checks may share.
const KEY_FIELDS = ['check', 'name', 'slot_id', 'case_id', 'stage', 'channel', 'index'] as const;

function keyOf(v: Record<string, Json>, field: string): string | null {
  if (field === 'run') return Object.hasOwn(v, 'run_id') && Object.hasOwn(v, 'run_attempt') && typeof v.run_id === 'number' && typeof v.run_attempt === 'number' ? `${v.run_id}-${v.run_attempt}` : null;
  const k = Object.hasOwn(v, field) ? v[field] : undefined;
  return typeof k === 'string' || typeof k === 'number' ? String(k) : null;
}

/** The field that names every element of both arrays uniquely, or null (match by position). */
function keyField(a: Json[], b: Json[]): string | null {
  if (!a.every(isObject) || !b.every(isObject)) return null;
  for (const field of [...KEY_FIELDS, 'run']) {
    const ok = [a, b].every((list) => {
      const keys = (list as Record<string, Json>[]).map((v) => keyOf(v, field));
      return keys.every((k) => k !== null) && new Set(keys).size === keys.length;
    });
    if (ok && a.length + b.length > 0) return field;
  }
  return null;
}

/** `[key]`, quoted when the key is not a plain word, so a path reads back unambiguously. */
export function segment(k: string): string {
  return /^[\w.-]+$/.test(k) ? `[${k}]` : `[${JSON.stringify(k)}]`;
}

const join = (base: string, key: string): string => (base === '' ? key : `${base}.${key}`);

function walkSeries(a: Json[], b: Json[], path: string, tol: Tolerance, sink: WalkSink): void {
  const n = Math.min(a.length, b.length);
  sink.counted(Math.max(a.length, b.length));
  if (a.length !== b.length) sink.change(`${path}.length`, a.length, b.length, b.length - a.length);
  let differing = 0;
  let first = -1;
  let worst = -1;
  let worstDelta = -1;
  for (let i = 0; i < n; i++) {
    if (samePlain(a[i], b[i], tol)) continue;
    differing++;
    if (first < 0) first = i;
    const d = typeof a[i] === 'number' && typeof b[i] === 'number' ? Math.abs((b[i] as number) - (a[i] as number)) : Infinity;
    if (d > worstDelta) {
      worstDelta = d;
      worst = i;
    }
  }
  if (differing === 0) return;
  const old = a[worst];
  const now = b[worst];
  sink.change(`${path}[${worst}]`, old, now, numberDelta(old, now), { frames_old: a.length, frames_new: b.length, differing, first_frame: first });
}

/** One step of the walk: compare two values, or report a value found on one side only. Kept on an explicit stack, so the depth of the data never becomes the depth of the call stack. */
type Step = { kind: 'walk'; a: Json; b: Json; path: string } | { kind: 'one'; path: string; side: 'old' | 'new'; value: Json };

/**
 * Compares `a` (old) with `b` (new) below `path`. `skip(path)` leaves a subtree out
 * (paths as this walk writes them: `video.ssim.min`, `checks[<check>].value`).
 *
 * Only a value's own fields count (`Object.hasOwn`): a field named `constructor`, `toString` or
 * `__proto__` is a field like any other, present on one side or both, never something inherited.
 * The walk keeps its own stack, so neither nesting nor the number of entries can overflow the call
 * stack; changes are reported in the order a depth-first walk meets them.
 */
export function walk(a: Json, b: Json, path: string, tol: Tolerance, sink: WalkSink, skip: (path: string) => boolean = () => false): void {
  const stack: Step[] = [{ kind: 'walk', a, b, path }];
  // Steps are pushed in reverse, so they are taken in document order.
  const later = (steps: Step[]): void => {
    for (let i = steps.length - 1; i >= 0; i--) stack.push(steps[i]!);
  };
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    if (step.kind === 'one') sink.oneSided(step.path, step.side, step.value);
    else walkOne(step.a, step.b, step.path, tol, sink, skip, later);
  }
}

const own = (o: Record<string, Json>, k: string): boolean => Object.hasOwn(o, k) && o[k] !== undefined;

function walkOne(a: Json, b: Json, path: string, tol: Tolerance, sink: WalkSink, skip: (path: string) => boolean, later: (steps: Step[]) => void): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    const last = path.slice(path.lastIndexOf('.') + 1);
    const all = (test: (v: Json) => boolean): boolean => a.every(test) && b.every(test);
    if (/per_frame$/.test(last) && all((v) => v === null || typeof v === 'number')) return walkSeries(a, b, path, tol, sink);
    if (all(isPlain)) {
      sink.counted(1);
      if (a.length !== b.length || a.some((v, i) => !samePlain(v, b[i], tol))) sink.change(path, a, b, null);
      return;
    }
    const steps: Step[] = [];
    const field = keyField(a, b);
    if (field === null) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const p = `${path}[${i}]`;
        if (skip(p)) continue;
        if (i >= a.length) steps.push({ kind: 'one', path: p, side: 'new', value: b[i] });
        else if (i >= b.length) steps.push({ kind: 'one', path: p, side: 'old', value: a[i] });
        else steps.push({ kind: 'walk', a: a[i], b: b[i], path: p });
      }
      return later(steps);
    }
    const byKey = (list: Json[]): Map<string, Json> => new Map((list as Record<string, Json>[]).map((v) => [keyOf(v, field)!, v]));
    const ma = byKey(a);
    const mb = byKey(b);
    for (const [k, va] of ma) {
      const p = `${path}${segment(k)}`;
      if (skip(p)) continue;
      if (mb.has(k)) steps.push({ kind: 'walk', a: va, b: mb.get(k), path: p });
      else steps.push({ kind: 'one', path: p, side: 'old', value: va });
    }
    for (const [k, vb] of mb) {
      const p = `${path}${segment(k)}`;
      if (!ma.has(k) && !skip(p)) steps.push({ kind: 'one', path: p, side: 'new', value: vb });
    }
    return later(steps);
  }
  if (isObject(a) && isObject(b)) {
    const steps: Step[] = [];
    for (const k of Object.keys(a)) {
      const p = join(path, k);
      if (skip(p) || a[k] === undefined) continue;
      if (own(b, k)) steps.push({ kind: 'walk', a: a[k], b: b[k], path: p });
      else steps.push({ kind: 'one', path: p, side: 'old', value: a[k] });
    }
    for (const k of Object.keys(b)) {
      const p = join(path, k);
      if (!own(a, k) && b[k] !== undefined && !skip(p)) steps.push({ kind: 'one', path: p, side: 'new', value: b[k] });
    }
    return later(steps);
  }
  sink.counted(1);
  if (isPlain(a) && isPlain(b)) {
    if (!samePlain(a, b, tol)) sink.change(path, a, b, numberDelta(a, b));
    return;
  }
  // null where the other side has an object or array (e.g. `video` of a pair invalid on one side): not
  // computed on that side. Any other mix of shapes is a change of the whole value.
  if (a === null) sink.oneSided(path, 'new', b);
  else if (b === null) sink.oneSided(path, 'old', a);
  else sink.change(path, a, b, null);
}
