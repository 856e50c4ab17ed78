#!/usr/bin/python3
"""The clip-validity oracle: each clip analysed on its own with PyAV and numpy, independently of
the library (docs/metrics.md, "Clip validity"), and the small clips made for it.

  clip-validity-oracle.py make DIR          writes the oracle's clips into DIR (names below; corrupt.mp4
                                            and geometry.mp4 with the ffmpeg command line, $FFMPEG)
  clip-validity-oracle.py broken SRC DIR    the four broken clips of the end-to-end test, made from SRC
                                            (an MP4 with video and audio): black.mp4, frozen.mp4,
                                            silent.mp4, gap.mp4 (0.256 s audio timestamp gap after
                                            16384 samples, no sample lost)
  clip-validity-oracle.py analyse FILE...   prints {"clips": [{file, video, audio}]} as JSON

Video: every decoded frame as PyAV's `to_ndarray(format="rgb24")`, every frame's `pts` in its time
base, PyAV's `is_corrupt` per frame (the decoder's error flags) and every frame's size. Audio: every decoded frame converted to planar float32 by libswresample (what `-c:a pcm_f32le`
gives the library), as float64, and every frame's `pts`. Written from the definitions, not from the
library's code. Run with Debian's /usr/bin/python3 (python3-av, python3-numpy).
"""
import fractions
import json
import os
import sys

import av
import numpy as np

BLACK_MAX = 3
WHITE_MIN = 252
FROZEN_MAE = 1 / 1024
SILENCE = 1e-4
CLIP = 1 - 1 / 32768
W, H, FPS, N = 64, 48, 12, 12
RATE = 16000


def fraction(n, d):
    return n / d if d else None


def analyse_video(container):
    stream = container.streams.video[0]
    frames = []
    black = white = dup = frozen = 0
    maes = []
    prev = None
    pts = []
    tb = None
    corrupt = 0
    sizes = []
    for frame in container.decode(stream):
        sizes.append((frame.width, frame.height))
        tb = frame.time_base or stream.time_base
        pts.append(frame.pts)
        # PyAV's is_corrupt: the frame's decode_error_flags are set, or it carries AV_FRAME_FLAG_CORRUPT.
        if frame.is_corrupt:
            corrupt += 1
        if sizes[-1] != sizes[0] or corrupt:
            continue
        rgb = frame.to_ndarray(format="rgb24")
        is_black = int(rgb.max()) <= BLACK_MAX
        is_white = int(rgb.min()) >= WHITE_MIN
        black += is_black
        white += (is_white and not is_black)
        frames.append(is_black or is_white)
        if prev is not None:
            d = np.abs(rgb.astype(np.int64) - prev.astype(np.int64))
            if not d.any():
                dup += 1
            mae = float(d.sum()) / (rgb.size * 255)
            maes.append(mae)
            frozen += mae <= FROZEN_MAE
        prev = rgb
    n = len(pts)
    timed = [p for p in pts if p is not None]
    intervals = [float((b - a) * tb) for a, b in zip(timed, timed[1:])]
    nonincreasing = sum(1 for a, b in zip(timed, timed[1:]) if b <= a)
    stable = all(size == sizes[0] for size in sizes)
    times = {
        "frame_count": n,
        "min_frame_interval_seconds": min(intervals) if intervals else None,
        "max_frame_interval_seconds": max(intervals) if intervals else None,
        "missing_timestamps": sum(1 for p in pts if p is None),
        "nonincreasing_timestamps": nonincreasing,
        "corrupt_frame_count": corrupt,
        "geometry_stable": stable,
    }
    if not stable or corrupt:
        # The ffmpeg command line scales every later frame to the first frame's size (with its own
        # swscale settings) before the library sees it, and a corrupt frame's picture is the
        # decoder's concealment, which depends on its threading: the picture figures of such a clip
        # are not this oracle's to reproduce, only its counts, timestamps and sizes.
        return times
    return {
        **times,
        "black_fraction": fraction(black, n),
        "white_fraction": fraction(white, n),
        "blank_fraction": fraction(black + white, n),
        "duplicate_fraction": fraction(dup, n - 1) if n > 1 else None,
        "mean_adjacent_frame_mae": float(np.mean(maes)) if maes else None,
        "frozen_fraction": fraction(frozen, n - 1) if n > 1 else None,
        "blank_runs": runs(frames),
    }


def runs(flags, shift_end=0):
    out, start = [], None
    for i, on in enumerate(list(flags) + [False]):
        if on and start is None:
            start = i
        if not on and start is not None:
            out.append([start, i - 1 + shift_end])
            start = None
    return out


def analyse_audio(container):
    if not container.streams.audio:
        return None
    stream = container.streams.audio[0]
    resampler = av.AudioResampler(format="fltp", layout=stream.layout.name, rate=stream.rate)
    chunks, times = [], []
    corrupt = 0
    for frame in container.decode(stream):
        times.append((frame.pts, frame.time_base or stream.time_base, frame.samples))
        if frame.is_corrupt:
            corrupt += 1
        for out in resampler.resample(frame):
            chunks.append(out.to_ndarray().astype(np.float64))
    rate = stream.rate
    x = np.concatenate(chunks, axis=1) if chunks else np.zeros((stream.channels, 0))
    n = x.shape[1]
    rms = [float(np.sqrt(np.mean(c * c))) if n else None for c in x]
    pairs = []
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            a, b = x[i], x[j]
            mse = max(0.0, float(np.sum(a * a) + np.sum(b * b) - 2 * np.sum(a * b))) / n if n else None
            if mse is not None and mse <= 1e-16:
                pairs.append([i, j])
    gaps = []
    prev = None
    nonincreasing = missing = 0
    for p, tb, samples in times:
        if p is None:
            missing += 1
            continue
        if prev is not None:
            pp, ptb, ps = prev
            if p <= pp:
                nonincreasing += 1
            gaps.append(abs(float(p * tb) - (float(pp * ptb) + ps / rate)))
        prev = (p, tb, samples)
    return {
        "sample_count": n,
        "rms_channels": rms,
        "rms_dbfs_channels": [20 * np.log10(r) if r else None for r in rms],
        "peak_channels": [float(np.max(np.abs(c))) if n else None for c in x],
        "dc_offset_channels": [float(np.mean(c)) if n else None for c in x],
        "clipping_fraction_channels": [float(np.mean(np.abs(c) >= CLIP)) if n else None for c in x],
        "silence_fraction_channels": [float(np.mean(np.abs(c) <= SILENCE)) if n else None for c in x],
        "silent_channels": [i for i, r in enumerate(rms) if r is not None and r <= SILENCE],
        "identical_channel_pairs": pairs,
        "max_timestamp_gap_seconds": max(gaps) if gaps else None,
        "missing_timestamps": missing,
        "nonincreasing_timestamps": nonincreasing,
        "corrupt_frame_count": corrupt,
    }


def analyse(path):
    with av.open(path) as c:
        video = analyse_video(c)
    with av.open(path) as c:
        audio = analyse_audio(c)
    return {"file": os.path.basename(path), "video": video, "audio": audio}


# ---------------------------------------------------------------- the oracle's clips

def yuv(y, u=128, v=128):
    """A yuv420p frame array (H * 3/2 rows) with planes filled by y (scalar or HxW), u, v."""
    a = np.empty((H * 3 // 2, W), np.uint8)
    a[:H] = y
    a[H:H + H // 4].reshape(-1)[:] = u
    a[H + H // 4:].reshape(-1)[:] = v
    return a


def noise(seed):
    return np.random.default_rng(seed).integers(16, 236, size=(H, W), dtype=np.uint8)


def write(path, frames, pts=None, tb=fractions.Fraction(1, FPS * 1024), audio=None, audio_pts=None):
    """ffv1 (lossless, intra) in Matroska, which keeps any timestamps given; audio pcm_s16le.
    frames: yuv420p arrays; pts: per-frame PTS in tb (default even 1/FPS); audio: (channels, n) int16
    in frames of 1024 samples, audio_pts: per-frame PTS in 1/RATE (default contiguous)."""
    with av.open(path, "w", format="matroska") as c:
        vs = c.add_stream("ffv1", rate=FPS)
        vs.width, vs.height, vs.pix_fmt = W, H, "yuv420p"
        vs.codec_context.time_base = tb
        ast = None
        if audio is not None:
            ast = c.add_stream("pcm_s16le", rate=RATE, layout="stereo" if audio.shape[0] == 2 else "mono")
            ast.codec_context.time_base = fractions.Fraction(1, RATE)
        step = int(1 / (FPS * tb))
        for i, f in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(f, format="yuv420p")
            frame.pts = pts[i] if pts else i * step
            frame.time_base = tb
            for p in vs.encode(frame):
                c.mux(p)
        for p in vs.encode():
            c.mux(p)
        if ast is not None:
            n = audio.shape[1]
            for k, start in enumerate(range(0, n, 1024)):
                block = np.ascontiguousarray(audio[:, start:start + 1024].T).reshape(1, -1)
                frame = av.AudioFrame.from_ndarray(block, format="s16", layout=ast.layout.name)
                frame.sample_rate = RATE
                frame.pts = audio_pts[k] if audio_pts else start
                frame.time_base = fractions.Fraction(1, RATE)
                for p in ast.encode(frame):
                    c.mux(p)
            for p in ast.encode():
                c.mux(p)


def tone(n=RATE, freq=440.0, amp=0.5, channels=2, dc=0.0, seed=0):
    t = np.arange(n) / RATE
    rng = np.random.default_rng(seed)
    out = []
    for c in range(channels):
        s = amp * np.sin(2 * np.pi * (freq * (c + 1)) * t) + dc + 0.01 * rng.standard_normal(n)
        out.append(np.clip(np.round(s * 32768), -32768, 32767).astype(np.int16))
    return np.stack(out)


def make(d):
    os.makedirs(d, exist_ok=True)
    moving = [yuv(noise(i)) for i in range(N)]
    write(f"{d}/black.mkv", [yuv(16)] * N)
    write(f"{d}/white.mkv", [yuv(235)] * N)
    write(f"{d}/fade.mkv", [yuv(16 + 18 * i) for i in range(N)])
    write(f"{d}/held.mkv", [moving[0]] * N)
    write(f"{d}/repeated.mkv", [moving[i // 2] for i in range(N)])
    write(f"{d}/duplicate-pts.mkv", moving, pts=[0, 1024, 1024, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 10240, 11264])
    # Intervals of 2/3 and 4/3 of a frame: the average is 1/12 s, the cadence is not.
    write(f"{d}/uneven.mkv", moving, pts=[sum(683 if k % 2 == 0 else 1365 for k in range(i)) for i in range(N)])
    write(f"{d}/silence.mkv", moving, audio=np.zeros((2, RATE), np.int16))
    clipped = tone(amp=1.6)
    write(f"{d}/clipped.mkv", moving, audio=clipped)
    write(f"{d}/dc.mkv", moving, audio=tone(dc=0.25, amp=0.2))
    same = tone(channels=1)
    write(f"{d}/identical-channels.mkv", moving, audio=np.concatenate([same, same]))
    write(f"{d}/sound.mkv", moving, audio=tone())
    blocks = RATE // 1024 + 1
    # A 0.256 s gap after 8 frames of 1024 samples, no sample lost; an overlap of 512 samples after 8.
    write(f"{d}/audio-gap.mkv", moving, audio=tone(), audio_pts=[1024 * k + (4096 if k >= 8 else 0) for k in range(blocks)])
    write(f"{d}/audio-overlap.mkv", moving, audio=tone(), audio_pts=[1024 * k - (512 if k >= 8 else 0) for k in range(blocks)])
    encoded(d)


def encoded(d):
    """The two H.264 clips (the ffmpeg command line's libx264; ffv1 has nothing to conceal):
    corrupt.mp4, 12 frames whose 6th packet has its second half zeroed, which the decoder conceals
    and flags (checked here with PyAV, so the recipe cannot silently stop making a corrupt frame);
    geometry.mp4, 6 frames at 64x48 then 6 at 96x48 in one stream (two Annex-B streams joined)."""
    import subprocess
    ff = os.environ.get("FFMPEG", "ffmpeg")
    base = [ff, "-nostdin", "-hide_banner", "-v", "error", "-y"]
    enc = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "100", "-threads", "1"]
    good = f"{d}/corrupt-source.mp4"
    subprocess.run(base + ["-f", "lavfi", "-i", f"testsrc=size={W}x{H}:rate={FPS}", "-frames:v", str(N)] + enc + [good], check=True)
    with av.open(good) as c:
        packets = [(p.pos, p.size) for p in c.demux(c.streams.video[0]) if p.size]
    data = bytearray(open(good, "rb").read())
    pos, size = packets[5]
    data[pos + size // 2:pos + size] = bytes(size - size // 2)
    with open(f"{d}/corrupt.mp4", "wb") as f:
        f.write(data)
    os.remove(good)
    with av.open(f"{d}/corrupt.mp4") as c:
        flags = [f.is_corrupt for f in c.decode(video=0)]
    if len(flags) != N or not any(flags):
        raise SystemExit(f"corrupt.mp4: expected {N} frames, some flagged corrupt; got {flags}")
    parts = []
    for i, w in enumerate((W, W * 3 // 2)):
        part = f"{d}/geometry-{i}.h264"
        subprocess.run(base + ["-f", "lavfi", "-i", f"testsrc=size={w}x{H}:rate={FPS}", "-frames:v", str(N // 2)] + enc + ["-f", "h264", part], check=True)
        parts.append(part)
    joined = f"{d}/geometry.h264"
    with open(joined, "wb") as out:
        for part in parts:
            with open(part, "rb") as f:
                out.write(f.read())
            os.remove(part)
    subprocess.run(base + ["-r", str(FPS), "-i", joined, "-c", "copy", f"{d}/geometry.mp4"], check=True)
    os.remove(joined)


def broken(src, d):
    """The four broken clips of the issue from one good MP4 (h264 + AAC): only the one property changes."""
    import subprocess
    os.makedirs(d, exist_ok=True)
    ff = os.environ.get("FFMPEG", "ffmpeg")
    base = [ff, "-nostdin", "-hide_banner", "-v", "error", "-y", "-i", src]
    enc = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-bf", "0", "-threads", "1"]
    subprocess.run(base + ["-vf", "lutyuv=y=16:u=128:v=128"] + enc + ["-c:a", "copy", f"{d}/black.mp4"], check=True)
    # The first frame held for every frame: the same count and rate, no motion.
    n = count_frames(src)
    subprocess.run(base + ["-vf", f"select=eq(n\\,0),loop=loop={n - 1}:size=1:start=0,setpts=N/FRAME_RATE/TB"]
                   + enc + ["-qp", "0", "-c:a", "copy", f"{d}/frozen.mp4"], check=True)
    subprocess.run(base + ["-c:v", "copy", "-af", "volume=0", "-c:a", "aac", f"{d}/silent.mp4"], check=True)
    # The gap: every audio packet from the 18th on (after 16 decoded frames of 1024: the first packet
    # is the encoder's priming) is 0.256 s later; its samples stay.
    with av.open(src) as inp, av.open(f"{d}/gap.mp4", "w") as out:
        vin, ain = inp.streams.video[0], inp.streams.audio[0]
        vout = out.add_stream(template=vin)
        aout = out.add_stream(template=ain)
        shift = int(round(0.256 / ain.time_base))
        k = 0
        for packet in inp.demux(vin, ain):
            if packet.dts is None:
                continue
            if packet.stream is ain:
                if k >= 17:
                    packet.pts += shift
                    packet.dts += shift
                k += 1
                packet.stream = aout
            else:
                packet.stream = vout
            out.mux(packet)


def count_frames(src):
    with av.open(src) as c:
        return sum(1 for _ in c.decode(video=0))


def main(argv):
    if len(argv) >= 2 and argv[0] == "make":
        make(argv[1])
    elif len(argv) >= 3 and argv[0] == "broken":
        broken(argv[1], argv[2])
    elif argv and argv[0] == "analyse":
        print(json.dumps({"versions": {"av": av.__version__, "numpy": np.__version__}, "clips": [analyse(p) for p in argv[1:]]}))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
