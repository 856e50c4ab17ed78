import { describe, expect, it } from 'vitest';
import { checkCompatibility } from '../../src/media/compat.js';
import { planeGeometry } from '../../src/media/pixel-formats.js';
import type { TrackEdits } from '../../src/media/edit-list.js';
import type { MediaProbe, StreamSummary, VideoProbe } from '../../src/media/probe.js';

function probe(
  over: { video?: Partial<VideoProbe>; audio?: Partial<NonNullable<MediaProbe['audio']>> | null; streams?: StreamSummary[] } = {},
): MediaProbe {
  const width = over.video?.width ?? 64;
  const height = over.video?.height ?? 36;
  const pixFmt = over.video?.pixFmt ?? 'yuv420p';
  const pts = over.video?.pts ?? [0, 512, 1024, 1536];
  return {
    file: 'x.mp4',
    sizeBytes: 1,
    formatName: 'mov,mp4',
    containerReader: 'mp4',
    streams: over.streams ?? [
      { index: 0, type: 'video', codec: 'h264', coverArt: false },
      ...(over.audio === null ? [] : [{ index: 1, type: 'audio', codec: 'aac', coverArt: false }]),
    ],
    video: {
      index: 0,
      codec: 'h264',
      width,
      height,
      pixFmt,
      geometry: planeGeometry(pixFmt, width, height),
      timeBase: { num: 1, den: 12288 },
      displayMatrix: null,
      rotation: null,
      sampleAspect: { num: 1, den: 1 },
      editList: null,
      ...over.video,
      pts,
      frames: pts.length,
    },
    audio:
      over.audio === null
        ? null
        : {
            index: 1,
            codec: 'aac',
            sampleRate: 32000,
            channels: 2,
            channelLayout: 'stereo',
            samples: 32768,
            timeBase: { num: 1, den: 32000 },
            startPts: 0,
            editList: null,
            ...over.audio,
          },
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
    // Without audio: a first frame one tick later also moves the audio start relative to the video (below).
    expect(checkCompatibility(probe({ audio: null }), probe({ video: { pts: [1, 513, 1023, 1535] }, audio: null }))).toBeNull();
    // With audio, 1/12288 s is more than one sample at 32 kHz.
    expect(checkCompatibility(probe(), probe({ video: { pts: [1, 513, 1023, 1535] } }))?.code).toBe('INCOMPATIBLE_AUDIO_START');
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

  it('refuses an extra stream on either side, naming the side and listing both files', () => {
    const two = [
      { index: 0, type: 'video', codec: 'h264', coverArt: false },
      { index: 1, type: 'audio', codec: 'aac', coverArt: false },
    ];
    const secondAudio = probe({ streams: [...two, { index: 2, type: 'audio', codec: 'aac', coverArt: false }] });
    expect(checkCompatibility(probe(), secondAudio)).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'candidate', message: expect.stringContaining('#2 audio') });
    expect(checkCompatibility(secondAudio, probe())).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'baseline' });
    expect(checkCompatibility(secondAudio, secondAudio)).toMatchObject({ code: 'EXTRA_AUDIO_STREAM', side: 'both' });
    const cover = probe({ streams: [...two, { index: 2, type: 'video', codec: 'png', coverArt: true }] });
    expect(checkCompatibility(probe(), cover)).toMatchObject({ code: 'EXTRA_VIDEO_STREAM', side: 'candidate', message: expect.stringContaining('cover art') });
    const data = probe({ streams: [...two, { index: 2, type: 'data', codec: 'tmcd', coverArt: false }] });
    expect(checkCompatibility(probe(), data)).toMatchObject({ code: 'EXTRA_STREAM', side: 'candidate' });
  });

  it('compares the audio start relative to the video within one audio sample', () => {
    // 1 sample at 32 kHz is 1/32000 s; the video starts at 0 on both sides.
    expect(checkCompatibility(probe(), probe({ audio: { startPts: 1 } }))).toBeNull();
    expect(checkCompatibility(probe(), probe({ audio: { startPts: 2 } }))?.code).toBe('INCOMPATIBLE_AUDIO_START');
    // Same instant in another time base: 1/32000 s = 45/1440000 s.
    expect(checkCompatibility(probe({ audio: { startPts: 16000 } }), probe({ audio: { timeBase: { num: 1, den: 1440000 }, startPts: 720000 } }))).toBeNull();
    const late = checkCompatibility(probe(), probe({ audio: { startPts: 16000 } }));
    expect(late).toMatchObject({ code: 'INCOMPATIBLE_AUDIO_START', message: expect.stringMatching(/baseline 0\.000000 s, candidate 0\.500000 s/) });
    // Relative to the video: both streams 1 s later on one side is a timestamp difference, caught as such.
    const shifted = probe({ video: { pts: [12288, 12800, 13312, 13824] }, audio: { startPts: 32000 } });
    expect(checkCompatibility(probe(), shifted)?.code).toBe('INCOMPATIBLE_TIMESTAMPS');
  });

  it('compares the display matrix (a missing one is the identity)', () => {
    const turned = [0, -65536, 0, 65536, 0, 0, 0, 0, 1 << 30];
    const failure = checkCompatibility(probe(), probe({ video: { displayMatrix: turned, rotation: 90 } }));
    expect(failure).toMatchObject({ code: 'INCOMPATIBLE_DISPLAY_MATRIX', message: expect.stringMatching(/baseline none .*candidate rotation 90 degrees/) });
    expect(checkCompatibility(probe({ video: { displayMatrix: turned } }), probe({ video: { displayMatrix: [...turned] } }))).toBeNull();
  });

  it('compares the sample aspect ratio as a ratio', () => {
    expect(checkCompatibility(probe(), probe({ video: { sampleAspect: { num: 2, den: 2 } } }))).toBeNull();
    expect(checkCompatibility(probe(), probe({ video: { sampleAspect: { num: 4, den: 3 } } }))).toMatchObject({
      code: 'INCOMPATIBLE_ASPECT_RATIO',
      message: expect.stringContaining('baseline 1:1, candidate 4:3'),
    });
  });

  it('compares edit lists as a player shows them, not their media offsets', () => {
    const track = (edits: TrackEdits['edits'], mediaDuration = 12288n): TrackEdits => ({ trackId: 1, movieTimescale: 1000, mediaTimescale: 12288, mediaDuration, edits });
    const shown = (ms: bigint, mediaTime = 0n) => ({ duration: ms, mediaTime, rate: 65536 });
    const video = (editList: TrackEdits | null) => probe({ video: { editList } });
    // Another media offset (B-frame delay), same second shown: the same.
    expect(checkCompatibility(video(track([shown(1000n)])), video(track([shown(1000n, 1024n)])))).toBeNull();
    // No edit list is the whole media: 12288 ticks of 1/12288 s = 1 s.
    expect(checkCompatibility(video(null), video(track([shown(1000n)])))).toBeNull();
    expect(checkCompatibility(video(track(null)), video(track([shown(1000n)])))).toBeNull();
    expect(checkCompatibility(video(track(null)), video(track([shown(999n)])))).toBeNull();
    expect(checkCompatibility(video(track(null)), video(track([shown(998n)])))?.code).toBe('INCOMPATIBLE_VIDEO_EDIT_LIST');
    // A fragmented file (empty moov) has no media duration to compare: its frames are compared instead.
    expect(checkCompatibility(video(track(null, 0n)), video(track([shown(1000n)])))).toBeNull();
    const delayed = checkCompatibility(video(track([shown(1000n)])), video(track([{ duration: 500n, mediaTime: -1n, rate: 65536 }, shown(1000n)])));
    expect(delayed).toMatchObject({ code: 'INCOMPATIBLE_VIDEO_EDIT_LIST', message: expect.stringMatching(/baseline show 1\.000000 s; candidate delay 0\.500000 s, then show 1\.000000 s/) });
    expect(checkCompatibility(video(track([shown(1000n)])), video(track([{ ...shown(1000n), rate: 32768 }])))?.code).toBe('INCOMPATIBLE_VIDEO_EDIT_LIST');
    const audio = (edits: TrackEdits['edits']) => probe({ audio: { editList: { ...track(edits, 32000n), mediaTimescale: 32000 } } });
    expect(checkCompatibility(audio([shown(1000n)]), audio([shown(990n)]))?.code).toBe('INCOMPATIBLE_AUDIO_EDIT_LIST');
  });

  it('makes frames too small for the metric windows that pair\'s reason', () => {
    const tiny = probe({ video: { width: 8, height: 8 } });
    expect(checkCompatibility(tiny, tiny)).toMatchObject({ code: 'FRAME_TOO_SMALL', side: 'both', message: expect.stringContaining('8x8') });
    // yuv420p at 14x14: luma fits the 11x11 window, the 7x7 chroma has no two whole 4x4 blocks.
    const chroma = probe({ video: { width: 14, height: 14 } });
    expect(checkCompatibility(chroma, chroma)?.code).toBe('FRAME_TOO_SMALL');
    const ok = probe({ video: { width: 16, height: 16 } });
    expect(checkCompatibility(ok, ok)).toBeNull();
  });

  it('reports the first disagreement in a fixed order', () => {
    const many = probe({ video: { width: 66, pts: [0] }, audio: { channels: 1 } });
    expect(checkCompatibility(probe(), many)?.code).toBe('INCOMPATIBLE_SIZE');
  });
});
