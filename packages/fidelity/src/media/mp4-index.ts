/**
 * A track's packets as libavformat 5.1's MP4 demuxer hands them out, from
 * its sample table: decode timestamps from stts (shifted back by the largest
 * negative composition offset of ctts, as libavformat does), presentation
 * timestamps from ctts, key frames from stss, and then the one edit of the
 * edit list applied the way libavformat applies it (mov_fix_index): the
 * samples from the key frame before the edit's start are kept, those outside
 * the edit flagged discard, the timestamps renumbered from the edit's start
 * (after an empty edit's delay) and, for video, shifted so that the first
 * shown frame is at 0; the samples after the first key frame past the edit's
 * end are dropped. AAC's priming is the part of a packet before the edit's
 * start: the packet is kept, its timestamp moved back.
 */

/** The sample table, one entry per sample (the caller has checked that the boxes agree). */
export interface SampleTable {
  /** stts decode times, in the track's time scale. */
  dts: Float64Array;
  /** The stts durations summed: the time the track's samples cover, in its time scale. */
  duration: number;
  /** ctts composition offsets (signed), one per sample; null without a ctts box. */
  ctts: Int32Array | null;
  /** libavformat's dts_shift: the largest negation of a negative offset, the last two ctts entries excepted. */
  dtsShift: number;
  key: Uint8Array;
}

/** The single non-empty edit, in the track's time scale, after an optional empty one. */
export interface SingleEdit {
  /** Duration of the leading empty edit, rescaled to the track's time scale; 0 without one. */
  empty: number;
  mediaTime: number;
  duration: number;
}

/** What the packet list shows of the track. */
export interface TrackPackets {
  /** Packets handed out, discarded ones included. */
  count: number;
  /** Presentation timestamps of the packets not flagged discard, in file order. */
  shownPts: number[];
  /** The time its packets cover, first timestamp to the last one's end (their durations summed), in the track's time scale. */
  duration: number;
}

/** ff_index_search_timestamp with AVSEEK_FLAG_BACKWARD over the original entries (none flagged discard). */
function searchBackward(ts: Float64Array, key: Uint8Array, wanted: number, any: boolean): number {
  let a = -1;
  let b = ts.length;
  if (b && ts[b - 1]! < wanted) a = b - 1;
  while (b - a > 1) {
    const m = (a + b) >> 1;
    if (ts[m]! >= wanted) b = m;
    if (ts[m]! <= wanted) a = m;
  }
  let m = a;
  if (!any) while (m >= 0 && m < ts.length && !key[m]) m--;
  return m;
}

/** find_prev_closest_index, with the ctts entries one per sample (as libavformat expands them). */
function prevClosest(ts: Float64Array, t: SampleTable, wanted: number, any: boolean): number {
  const pts = wanted - (t.dtsShift > 0 ? t.dtsShift : 0);
  let index = searchBackward(ts, t.key, pts, any);
  if (index >= 0) {
    for (let i = index; i > 0 && ts[i] === ts[i - 1]; i--) if (any || t.key[i - 1]) index = i - 1;
  }
  if (t.ctts && index >= 0) {
    while (index >= 0 && index < t.ctts.length) {
      if (ts[index]! + t.ctts[index]! <= pts && t.key[index]) break;
      index--;
    }
  }
  return index;
}

/** The packets without an edit list: every sample, pts = dts + ctts. */
function unedited(t: SampleTable): TrackPackets {
  const shownPts: number[] = [];
  for (let i = 0; i < t.dts.length; i++) shownPts.push(t.dts[i]! + (t.ctts ? t.ctts[i]! : 0));
  return { count: t.dts.length, shownPts, duration: t.duration };
}

/** mov_fix_index for one edit (after an optional empty one). */
export function trackPackets(t: SampleTable, edit: SingleEdit | null, audio: boolean, timescale: number): TrackPackets {
  if (!edit || t.dts.length === 0) return unedited(t);
  const n = t.dts.length;
  const ts = new Float64Array(n);
  for (let i = 0; i < n; i++) ts[i] = t.dts[i]! - t.dtsShift;
  const { mediaTime, duration } = edit;
  let counter = -t.dtsShift + edit.empty;
  const search = audio ? Math.max(mediaTime - timescale, ts[0]!) : mediaTime;
  let index = prevClosest(ts, t, search, false);
  if (index < 0) index = prevClosest(ts, t, search, true);
  if (index < 0) index = 0;

  const outTs: number[] = [];
  const outCtts: number[] = [];
  const outDiscard: boolean[] = [];
  let pending: number[] = [];
  let started = false;
  let minPts = -1;
  let keyAfter = false;
  const start = (): void => {
    started = true;
    let end = counter;
    for (let i = 0; i < pending.length; i++) {
      end -= pending[pending.length - 1 - i]!;
      outTs[outTs.length - 1 - i] = end;
    }
    pending = [];
  };
  for (let i = index; i < n; i++) {
    const frameDuration = i + 1 < n ? ts[i + 1]! - ts[i]! : duration;
    const ctts = t.ctts ? t.ctts[i]! : 0;
    const cts = ts[i]! + t.dtsShift + ctts;
    let discard = false;
    if (cts < mediaTime || cts >= duration + mediaTime) {
      if (audio && cts < mediaTime && cts + frameDuration > mediaTime) {
        counter -= mediaTime - cts;
        if (!started) start();
      } else {
        discard = true;
        if (!started) pending.push(frameDuration);
      }
    } else {
      const corrected = counter + ctts + t.dtsShift;
      minPts = minPts < 0 ? corrected : Math.min(minPts, corrected);
      if (!started) start();
    }
    outTs.push(counter);
    outCtts.push(ctts);
    outDiscard.push(discard);
    if (started) counter += frameDuration;
    if (cts + frameDuration >= duration + mediaTime && (t.key[i] || audio)) {
      if (t.ctts && !audio && !keyAfter) {
        keyAfter = true;
        continue;
      }
      break;
    }
  }
  minPts -= edit.empty;
  const shift = !audio && minPts > 0 ? minPts : 0;
  const shownPts: number[] = [];
  for (let k = 0; k < outTs.length; k++) {
    if (outDiscard[k]) continue;
    shownPts.push(outTs[k]! - shift + (t.ctts ? t.dtsShift + outCtts[k]! : 0));
  }
  // libavformat's edited stream lasts to the edit's end, and its last packet lasts up to there: the
  // packets then cover from the first one's timestamp (the priming's, before 0) to the edit's end.
  const first = outTs.length > 0 ? Math.min(0, outTs[0]! - shift) : 0;
  return { count: outTs.length, shownPts, duration: edit.empty + duration - first };
}
