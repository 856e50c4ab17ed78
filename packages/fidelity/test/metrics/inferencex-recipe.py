#!/usr/bin/python3
"""InferenceX's recipe for the pooled RGB figures and compare_media's whole metric dict,
independent of this library.

Run with Debian's python3 (apt-get install python3-av python3-numpy):

    /usr/bin/python3 inferencex-recipe.py BASELINE.mp4 CANDIDATE.mp4 [BASELINE CANDIDATE ...]
    /usr/bin/python3 inferencex-recipe.py --compare-media BASELINE.mp4 CANDIDATE.mp4 [...]

With --compare-media it prints, per pair, {"compatible", "metrics", "refusal"}: what
InferenceX's compare_media (evaluator v1.0.0) returns, computed from the definitions of
docs/metrics.md ("InferenceX's own figures"), see compare_media() below.

Prints one JSON document: the PyAV and libswscale versions, and for each pair
its frame count, pixel format and the pooled figures over every rgb24 sample of
every frame, as docs/metrics.md defines them (InferenceX's definition):

    mae     = sum|x-y| / (samples * 255)
    psnr_db = -10 * log10(sum (x-y)^2 / (samples * 255^2)), null when every sample is equal

rgb24 is what InferenceX's evaluator decodes: PyAV's frame.to_ndarray(format="rgb24")
(libswscale's default converter; BT.601, full range only for yuvj* formats).
The sums are exact integers (numpy int64, then Python ints). log10 is Python's
math.log10 (the C library's, correctly rounded on these values), not np.log10:
numpy's AVX-512 builds use SVML's log10, which can be one ulp off and differs
between CPUs with and without AVX-512.
"""
import json
import math
import sys
from fractions import Fraction

import av
import numpy as np


def frames(path):
    with av.open(path) as container:
        stream = container.streams.video[0]
        pix_fmt = stream.codec_context.pix_fmt
        return pix_fmt, [frame.to_ndarray(format="rgb24") for frame in container.decode(stream)]


def pooled(baseline, candidate):
    fmt_a, a = frames(baseline)
    fmt_b, b = frames(candidate)
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
        return {"baseline": baseline, "candidate": candidate, "error": f"{len(a)} against {len(b)} frames, or other sizes"}
    sad = sse = samples = 0
    for x, y in zip(a, b):
        d = x.astype(np.int64) - y.astype(np.int64)
        sad += int(np.abs(d).sum())
        sse += int((d * d).sum())
        samples += d.size
    return {
        "baseline": baseline,
        "candidate": candidate,
        "pix_fmt": fmt_a,
        "frames": len(a),
        "samples": samples,
        "mae": sad / (samples * 255),
        "psnr_db": None if sse == 0 else -10 * math.log10(sse / (samples * 255 * 255)),
    }


def clip(path):
    """Every decoded frame of the first video stream (rgb24, PTS, size, corrupt flag) and every
    decoded sample of the first audio stream (float64 of the float32 PCM, channels x samples),
    with each audio frame's PTS and length, as PyAV gives them."""
    out = {"video": [], "video_pts": [], "sizes": [], "corrupt": False, "audio": None}
    with av.open(path) as container:
        vs = container.streams.video[0]
        out["video_tb"] = vs.time_base
        for frame in container.decode(vs):
            out["video"].append(frame.to_ndarray(format="rgb24"))
            out["video_pts"].append(frame.pts)
            out["sizes"].append((frame.width, frame.height))
            out["corrupt"] |= bool(getattr(frame, "is_corrupt", False))
    with av.open(path) as container:
        if not container.streams.audio:
            return out
        st = container.streams.audio[0]
        ctx = st.codec_context
        chunks, frames = [], []
        channels = ctx.channels
        for frame in container.decode(st):
            x = frame.to_ndarray()
            if not frame.format.is_planar:
                x = x.reshape(-1, channels).T
            if x.dtype == np.int16:
                x = (x.astype(np.float32) * np.float32(1 / 32768))
            elif x.dtype == np.int32:
                x = (x.astype(np.float32) * np.float32(1 / 2147483648))
            chunks.append(x.astype(np.float32))
            frames.append((frame.pts, frame.time_base, frame.samples))
            out["corrupt"] |= bool(getattr(frame, "is_corrupt", False))
        pcm = np.concatenate(chunks, axis=1) if chunks else np.zeros((channels, 0), np.float32)
        out["audio"] = {"rate": ctx.sample_rate, "channels": channels, "layout": ctx.layout.name,
                        "pcm": pcm.astype(np.float64), "frames": frames}
    return out


def clip_invalid(c):
    """InferenceX's unconditional clip checks (docs/metrics.md, "Clip validity"): the first failing code."""
    pts = c["video_pts"]
    if any(p is None for p in pts) or any(b <= a for a, b in zip(pts, pts[1:])):
        return "CLIP_TIMESTAMPS"
    if c["corrupt"]:
        return "CLIP_CORRUPT_FRAMES"
    if any(s != c["sizes"][0] for s in c["sizes"]):
        return "CLIP_GEOMETRY_CHANGED"
    a = c["audio"]
    if a is not None:
        apts = [f[0] for f in a["frames"]]
        if any(p is None for p in apts) or any(y <= x for x, y in zip(apts, apts[1:])):
            return "CLIP_TIMESTAMPS"
        if a["pcm"].shape[1] == 0:
            return "CLIP_AUDIO_EMPTY"
        for (p0, tb0, n0), (p1, tb1, _) in zip(a["frames"], a["frames"][1:]):
            end = Fraction(p0) * tb0 + Fraction(n0, a["rate"])
            if abs(float(Fraction(p1) * tb1 - end)) > max(float(tb1), 1 / a["rate"]) + 1e-9:
                return "CLIP_AUDIO_GAP"
    return None


def template():
    """compare_media's dict of a pair it refuses: its 13 template keys, nothing more."""
    return {
        "video_mae": None, "video_psnr_db": None, "video_identical": None,
        "video_compared_frames": 0, "video_total_frames": 0, "video_sample_coverage_fraction": 0.0,
        "audio_waveform_mae": None, "audio_spectral_cosine": None, "audio_rms_ratio": None,
        "audio_rms_ratio_channels": [], "audio_spectral_cosine_channels": [], "audio_waveform_mae_channels": [],
        "audio_channel_count": 0,
    }


def unfilled():
    """Every key of an accepted pair's dict, before its figures are filled in."""
    return {
        "video_mae": None, "video_psnr_db": None, "video_identical": None,
        "video_compared_frames": 0, "video_total_frames": 0, "video_sample_coverage_fraction": None,
        "video_max_alignment_delta_seconds": None,
        "audio_channel_count": 0, "audio_compared_samples_per_channel": 0, "audio_sample_coverage_fraction": None,
        "audio_max_alignment_delta_seconds": None, "audio_waveform_mae": None,
        "audio_waveform_mae_channels": [], "audio_waveform_rmse_channels": [], "audio_identical": None,
        "audio_rms_ratio": None, "audio_rms_ratio_channels": [], "audio_spectral_cosine": None,
        "audio_spectral_cosine_channels": [], "audio_spectral_windows": 0, "audio_newly_silent_channels": [],
    }


def within_tick(pa, ta, pb, tb):
    return abs(Fraction(pa) * ta - Fraction(pb) * tb) <= max(ta, tb)


def refusal(x, y):
    """InferenceX's refusals: an invalid clip, or the clips differ in width, height, frame count,
    start/end time beyond one tick, audio presence, sample rate, channels, channel names, sample count."""
    for side, c in (("baseline", x), ("candidate", y)):
        code = clip_invalid(c)
        if code:
            return f"{side} {code}"
    if x["sizes"][0] != y["sizes"][0]:
        return "size"
    if len(x["video"]) != len(y["video"]):
        return "frame count"
    if not within_tick(x["video_pts"][0], x["video_tb"], y["video_pts"][0], y["video_tb"]):
        return "start time"
    if not within_tick(x["video_pts"][-1], x["video_tb"], y["video_pts"][-1], y["video_tb"]):
        return "end time"
    a, b = x["audio"], y["audio"]
    if (a is None) != (b is None):
        return "audio presence"
    if a is not None:
        for key in ("rate", "channels", "layout"):
            if a[key] != b[key]:
                return key
        if a["pcm"].shape[1] != b["pcm"].shape[1]:
            return "sample count"
    return None


def spectral(a, b, n=1024):
    """Pooled magnitude spectra of non-overlapping windows times np.hanning(n), the last zero-padded;
    None when either side's spectrum is all zeros."""
    pad = (-a.size) % n
    win = np.hanning(n)
    fa = np.abs(np.fft.rfft(np.concatenate([a, np.zeros(pad)]).reshape(-1, n) * win, axis=1))
    fb = np.abs(np.fft.rfft(np.concatenate([b, np.zeros(pad)]).reshape(-1, n) * win, axis=1))
    aa, bb, ab = float(np.sum(fa * fa)), float(np.sum(fb * fb)), float(np.sum(fa * fb))
    if aa == 0 or bb == 0:
        return None
    return min(1.0, max(0.0, ab / math.sqrt(aa * bb)))


def compare_media(baseline, candidate):
    x, y = clip(baseline), clip(candidate)
    why = refusal(x, y)
    if why:
        return {"baseline": baseline, "candidate": candidate, "compatible": False, "refusal": why, "metrics": template()}
    m = unfilled()
    sad = sse = samples = 0
    for p, q in zip(x["video"], y["video"]):
        d = p.astype(np.int64) - q.astype(np.int64)
        sad += int(np.abs(d).sum())
        sse += int((d * d).sum())
        samples += d.size
    frames = len(x["video"])
    m.update({
        "video_mae": sad / (samples * 255),
        "video_psnr_db": None if sse == 0 else -10 * math.log10(sse / (samples * 255 * 255)),
        "video_identical": sse == 0,
        "video_compared_frames": frames,
        "video_total_frames": max(frames, len(y["video"])),
        "video_sample_coverage_fraction": frames / max(frames, len(y["video"])),
        "video_max_alignment_delta_seconds": float(max(abs(Fraction(p) * x["video_tb"] - Fraction(q) * y["video_tb"])
                                                       for p, q in zip(x["video_pts"], y["video_pts"]))),
    })
    a, b = x["audio"], y["audio"]
    if a is not None:
        pa, pb = a["pcm"], b["pcm"]
        channels, n = pa.shape
        d = pa - pb
        ea, eb = np.sum(pa * pa, axis=1), np.sum(pb * pb, axis=1)
        rms_a, rms_b = np.sqrt(np.mean(pa * pa, axis=1)), np.sqrt(np.mean(pb * pb, axis=1))
        cos = [spectral(pa[c], pb[c]) for c in range(channels)]
        (p0, t0, _), (q0, u0, _) = a["frames"][0], b["frames"][0]
        m.update({
            "audio_channel_count": channels,
            "audio_compared_samples_per_channel": n,
            "audio_sample_coverage_fraction": n / max(n, pb.shape[1]),
            "audio_max_alignment_delta_seconds": float(abs(Fraction(p0) * t0 - Fraction(q0) * u0)),
            "audio_waveform_mae": float(np.mean(np.abs(d))),
            "audio_waveform_mae_channels": [float(v) for v in np.mean(np.abs(d), axis=1)],
            "audio_waveform_rmse_channels": [float(v) for v in np.sqrt(np.mean(d * d, axis=1))],
            "audio_identical": bool(np.all(pa == pb)),
            "audio_rms_ratio": None if float(np.sum(ea)) == 0 else math.sqrt(float(np.sum(eb)) / float(np.sum(ea))),
            "audio_rms_ratio_channels": [None if ea[c] == 0 else math.sqrt(float(eb[c]) / float(ea[c])) for c in range(channels)],
            "audio_spectral_cosine": None if any(c is None for c in cos) else min(cos),
            "audio_spectral_cosine_channels": cos,
            "audio_spectral_windows": -(-n // 1024),
            "audio_newly_silent_channels": [c for c in range(channels) if rms_a[c] > 1e-4 and rms_b[c] <= 1e-4],
        })
    return {"baseline": baseline, "candidate": candidate, "compatible": True, "refusal": None, "metrics": m}


def main(argv):
    whole = argv[:1] == ["--compare-media"]
    if whole:
        argv = argv[1:]
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    pairs = [(compare_media if whole else pooled)(argv[i], argv[i + 1]) for i in range(0, len(argv), 2)]
    versions = {"pyav": av.__version__, "libswscale": ".".join(str(x) for x in av.library_versions["libswscale"]), "numpy": np.__version__}
    json.dump({"versions": versions, "pairs": pairs}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
