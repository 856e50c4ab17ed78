import { describe, expect, it } from 'vitest';
import { checkCompatibility } from '../../src/media/compat.js';
import { planeGeometry } from '../../src/media/pixel-formats.js';
import type { MediaProbe, VideoProbe } from '../../src/media/probe.js';

function probe(over: { video?: Partial<VideoProbe>; audio?: Partial<NonNullable<MediaProbe['audio']>> | null } = {}): MediaProbe {
  const width = over.video?.width ?? 64;
  const height = over.video?.height ?? 36;
  const pixFmt = over.video?.pixFmt ?? 'yuv420p';
  const pts = over.video?.pts ?? [0, 512, 1024, 1536];
  return {
    file: 'x.mp4',
    sizeBytes: 1,
    formatName: 'mov,mp4',
    video: {
      index: 0,
      codec: 'h264',
      width,
      height,
      pixFmt,
      geometry: planeGeometry(pixFmt, width, height),
      timeBase: { num: 1, den: 12288 },
      ...over.video,
      pts,
      frames: pts.length,
    },
    audio: over.audio === null ? null : { index: 1, codec: 'aac', sampleRate: 32000, channels: 2, channelLayout: 'stereo', samples: 32768, ...over.audio },
  };
}

describe('checkCompatibility', () => {
  it('accepts two equal layouts', () => {
    expect(checkCompatibility(probe(), probe())).toBeNull();
    expect(checkCompatibility(probe({ audio: null }), probe({ audio: null }))).toBeNull();
  });

  it.each([
    ['INCOMPATIBLE_SIZE', probe({ video: { width: 66 } })],
    ['INCOMPATIBLE_SIZE', probe({ video: { height: 38 } })],
    ['UNSUPPORTED_PIXEL_FORMAT', probe({ video: { pixFmt: 'yuv420p10le' } })],
    ['INCOMPATIBLE_PIXEL_FORMAT', probe({ video: { pixFmt: 'yuv444p' } })],
    ['INCOMPATIBLE_FRAME_COUNT', probe({ video: { pts: [0, 512, 1024] } })],
    ['INCOMPATIBLE_TIMESTAMPS', probe({ video: { pts: [0, 512, 1024, 1538] } })],
    ['INCOMPATIBLE_AUDIO_PRESENCE', probe({ audio: null })],
    ['INCOMPATIBLE_SAMPLE_RATE', probe({ audio: { sampleRate: 48000 } })],
    ['INCOMPATIBLE_CHANNELS', probe({ audio: { channels: 1 } })],
    ['INCOMPATIBLE_SAMPLE_COUNT', probe({ audio: { samples: 32767 } })],
  ])('%s', (code, candidate) => {
    const failure = checkCompatibility(probe(), candidate);
    expect(failure?.code).toBe(code);
    expect(failure?.message).toMatch(/baseline|candidate/);
  });

  it('allows timestamps one tick apart, not two', () => {
    expect(checkCompatibility(probe(), probe({ video: { pts: [0, 512, 1024, 1537] } }))).toBeNull();
    expect(checkCompatibility(probe(), probe({ video: { pts: [1, 513, 1023, 1535] } }))).toBeNull();
    expect(checkCompatibility(probe(), probe({ video: { pts: [0, 514, 1024, 1536] } }))?.message).toMatch(/Frame 1 /);
  });

  it('compares timestamps in seconds across different time bases, the coarser tick being the tolerance', () => {
    // 1/24 s per frame as 1/90000 ticks: exactly the same instants.
    const ninety = probe({ video: { timeBase: { num: 1, den: 90000 }, pts: [0, 3750, 7500, 11250] } });
    expect(checkCompatibility(probe(), ninety)).toBeNull();
    // Off by 7 ticks of 1/90000 (< 1/12288 s): within the coarser tick.
    expect(checkCompatibility(probe(), probe({ video: { timeBase: { num: 1, den: 90000 }, pts: [0, 3757, 7500, 11250] } }))).toBeNull();
    // Off by 8 ticks of 1/90000 (> 1/12288 s): not.
    expect(checkCompatibility(probe(), probe({ video: { timeBase: { num: 1, den: 90000 }, pts: [0, 3758, 7500, 11250] } }))?.code).toBe('INCOMPATIBLE_TIMESTAMPS');
  });

  it('reports the first disagreement in a fixed order', () => {
    const many = probe({ video: { width: 66, pts: [0] }, audio: { channels: 1 } });
    expect(checkCompatibility(probe(), many)?.code).toBe('INCOMPATIBLE_SIZE');
  });
});
