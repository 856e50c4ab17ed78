#!/usr/bin/python3
"""InferenceX's recipe for the pooled RGB figures, independent of this library.

Run with Debian's python3 (apt-get install python3-av python3-numpy):

    /usr/bin/python3 inferencex-recipe.py BASELINE.mp4 CANDIDATE.mp4 [BASELINE CANDIDATE ...]

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


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    pairs = [pooled(argv[i], argv[i + 1]) for i in range(0, len(argv), 2)]
    versions = {"pyav": av.__version__, "libswscale": ".".join(str(x) for x in av.library_versions["libswscale"]), "numpy": np.__version__}
    json.dump({"versions": versions, "pairs": pairs}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
