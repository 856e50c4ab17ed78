/**
 * Every audio metric of one pair: per channel over every sample, and the
 * pair's aggregate, which is its worst channel (docs/metrics.md).
 */
import { FidelityError, invalidParameter } from '../errors.js';
import type { AudioChannelMetrics, AudioMetrics } from '../schemas/measurement.js';
import { AudioChannel } from './audio-channel.js';
import type { AudioChannelSums } from './audio-channel.js';

/** Cross-correlation search range for lag_estimate_samples, in seconds either way. */
export const LAG_SEARCH_SECONDS = 0.5;

/**
 * The audio metrics of one pair: feed planar chunks of both sides in order, then `finish` for the {@link AudioMetrics}.
 */
export interface AudioAccumulator {
  /** Planar chunks, one Float32Array per channel, the same length on both sides and across channels. */
  push(a: Float32Array[], b: Float32Array[]): void;
  finish(): AudioMetrics;
  /** Per channel, the raw sums InferenceX's figures are made from ({@link InferencexFigures}), from the same pass; only after `finish`. */
  sums(): AudioChannelSums[];
}

function checkChunk(name: string, chunk: unknown, channels: number): asserts chunk is Float32Array[] {
  if (!Array.isArray(chunk) || chunk.length !== channels) throw invalidParameter(name, `an array of ${channels} Float32Array`, chunk);
  for (const [i, plane] of chunk.entries()) {
    if (!(plane instanceof Float32Array)) throw invalidParameter(`${name}[${i}]`, 'a Float32Array', plane);
  }
}

/** Whether every sample is finite: x * 0 is 0 for a finite x and NaN for an infinity or a NaN, and one NaN makes the sum NaN. */
function allFinite(plane: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < plane.length; i++) sum += plane[i]! * 0;
  return sum === 0;
}

/** The channel whose rms_ratio is furthest from 1; a silent baseline (null) is the furthest of all. */
export function worstRmsRatio(channels: AudioChannelMetrics[]): AudioChannelMetrics {
  let worst = channels[0]!;
  for (const c of channels) {
    if (worst.rms_ratio === null) break;
    if (c.rms_ratio === null || Math.abs(c.rms_ratio - 1) > Math.abs(worst.rms_ratio - 1)) worst = c;
  }
  return worst;
}

/**
 * Starts the per-channel audio metrics (docs/metrics.md: differences, SNR, Pearson, RMS ratio,
 * spectral cosine, silence, lag diagnostic) for `channels` channels at `sampleRate` Hz.
 *
 * @throws FidelityError `INVALID_ARGUMENT` when `sampleRate` or `channels` is not a positive integer, or chunks of unequal lengths are pushed.
 */
export function createAudioAccumulator(sampleRate: number, channels: number): AudioAccumulator {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw invalidParameter('sampleRate', 'a positive integer', sampleRate);
  if (!Number.isInteger(channels) || channels <= 0) throw invalidParameter('channels', 'a positive integer', channels);
  const maxLag = Math.floor(LAG_SEARCH_SECONDS * sampleRate);
  const state = Array.from({ length: channels }, (_, c) => new AudioChannel(c, maxLag));
  let finished = false;

  function push(a: Float32Array[], b: Float32Array[]): void {
    if (finished) throw new FidelityError('INVALID_ARGUMENT', 'push() after finish()');
    checkChunk('a', a, channels);
    checkChunk('b', b, channels);
    const length = a[0]!.length;
    for (let c = 0; c < channels; c++) {
      if (a[c]!.length !== length || b[c]!.length !== length) {
        throw invalidParameter(`chunk length of channel ${c}`, `${length} samples on both sides`, `${a[c]!.length} and ${b[c]!.length}`);
      }
    }
    for (let c = 0; c < channels; c++) {
      for (const [side, plane] of [['a', a[c]!], ['b', b[c]!]] as const) {
        if (allFinite(plane)) continue;
        for (let i = 0; i < plane.length; i++) {
          if (!Number.isFinite(plane[i]!)) throw invalidParameter(`${side}[${c}][${i}]`, 'a finite sample', plane[i]);
        }
      }
      state[c]!.push(a[c]!, b[c]!);
    }
  }

  function finish(): AudioMetrics {
    finished = true;
    const metrics = state.map((s) => s.finish());
    const worst = worstRmsRatio(metrics);
    return {
      sample_rate: sampleRate,
      channels: metrics,
      spectral_cosine: Math.min(...metrics.map((m) => m.spectral_cosine)),
      rms_ratio: worst.rms_ratio,
      rms_ratio_reason: worst.rms_ratio_reason,
      rms_ratio_channel: worst.channel,
      identical: metrics.every((m) => m.identical),
      newly_silent_channels: metrics.filter((m) => m.newly_silent).map((m) => m.channel),
    };
  }

  function sums(): AudioChannelSums[] {
    if (!finished) throw new FidelityError('INVALID_ARGUMENT', 'sums() before finish()');
    return state.map((s) => s.sums());
  }

  return { push, finish, sums };
}
