"""The Python peers of `gojit dataset bench`, in one process.

Reads a JSON spec on stdin ({"dir", "rounds", "check"}), loads every JPEG
listed in DIR/labels.csv into memory (the images are opened from these
bytes, as a loader that reads a packed file would), and measures, one
image at a time on whatever CPUs the process is pinned to:

  torchvision+PIL  RandomResizedCrop(224) + RandomHorizontalFlip + ToTensor + Normalize
  OpenCV+NumPy     cv2.imdecode + crop + cv2.resize(INTER_LINEAR) + flip + BGR->RGB + normalize + CHW
  PIL decode       Image.open(...).load()
  OpenCV decode    cv2.imdecode(..., IMREAD_COLOR)

Each round runs every system over all the images in turn; a system's
figure is its best round. Before timing, the first `check` images'
outputs are checked: shape, dtype and value range; the two decoders agree
on the pixels (so OpenCV's BGR is undone); and the OpenCV pipeline agrees
with torchvision's functional resized_crop on the same boxes. Writes a
JSON report on stdout and progress on stderr.
"""

import csv
import io
import json
import os
import random
import sys
import time

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def log(*args):
    print("pipe_peers:", *args, file=sys.stderr, flush=True)


def main():
    spec = json.load(sys.stdin)
    report = {"results": [], "checks": {}}
    try:
        run(spec, report)
    except Exception as e:  # reported to the Go side, which fails with it
        import traceback

        report["error"] = "%s: %s" % (type(e).__name__, e)
        traceback.print_exc(file=sys.stderr)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


def run(spec, report):
    import cv2
    import numpy as np
    import PIL
    import torch
    import torchvision
    from PIL import Image
    from torchvision import transforms as T
    from torchvision.transforms import functional as F

    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    report.update(
        python=sys.version.split()[0],
        numpy=np.__version__,
        torch=torch.__version__,
        torchvision=torchvision.__version__,
        pil=PIL.__version__,
        opencv=cv2.__version__,
        cpus=sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [],
    )
    d = spec["dir"]
    rows = []
    with open(os.path.join(d, "labels.csv"), newline="") as f:
        for r in csv.DictReader(f):
            rows.append(r)
    if not rows:
        raise ValueError("%s/labels.csv lists no images" % d)
    blobs = []
    for r in rows:
        with open(os.path.join(d, r["file"]), "rb") as f:
            blobs.append(f.read())
    sizes = [(int(r["height"]), int(r["width"])) for r in rows] if "width" in rows[0] else None
    n = len(blobs)
    report["images"] = n
    log("%d images, %.1f MB of JPEG in memory" % (n, sum(map(len, blobs)) / 1e6))

    mean255 = np.array([m * 255 for m in MEAN], np.float32)
    inv_std255 = np.array([1 / (s * 255) for s in STD], np.float32)
    lo = min((0 - m) / s for m, s in zip(MEAN, STD))
    hi = max((1 - m) / s for m, s in zip(MEAN, STD))

    tv = T.Compose([
        T.RandomResizedCrop(224),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize(MEAN, STD),
    ])

    def torchvision_pil(b):
        return tv(Image.open(io.BytesIO(b)).convert("RGB"))

    rng = random.Random(1)

    def cv_pipeline(b, box=None, flip=None):
        img = cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        y, x, ch, cw = box if box is not None else rrc_params(rng, w, h)
        out = cv2.resize(img[y:y + ch, x:x + cw], (224, 224), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.5 if flip is None else flip:
            out = cv2.flip(out, 1)
        out = cv2.cvtColor(out, cv2.COLOR_BGR2RGB)
        f = (out.astype(np.float32) - mean255) * inv_std255
        return np.ascontiguousarray(f.transpose(2, 0, 1))

    def pil_decode(b):
        im = Image.open(io.BytesIO(b))
        im.load()
        return im

    def cv_decode(b):
        return cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR)

    systems = [
        ("torchvision+PIL", "rrc224", torchvision_pil),
        ("OpenCV+NumPy", "rrc224", cv_pipeline),
        ("PIL decode", "decode", pil_decode),
        ("OpenCV decode", "decode", cv_decode),
    ]

    # Checks, before timing.
    k = min(n, int(spec.get("check", 32)))
    checks = report["checks"]

    def check_chw(name, out):
        a = out.numpy() if hasattr(out, "numpy") else out
        if a.shape != (3, 224, 224) or a.dtype != np.float32:
            raise ValueError("%s: output %s %s, want (3, 224, 224) float32" % (name, a.shape, a.dtype))
        mn, mx = float(a.min()), float(a.max())
        if mn < lo - 1e-3 or mx > hi + 1e-3 or mn == mx:
            raise ValueError("%s: output in [%g, %g], want a non-constant range inside [%g, %g]" % (name, mn, mx, lo, hi))
        return mn, mx

    for name, _, fn in systems[:2]:
        mn, mx = 1e9, -1e9
        for i in range(k):
            a, b = check_chw(name, fn(blobs[i]))
            mn, mx = min(mn, a), max(mx, b)
        checks[name] = {"checked": k, "shape": [3, 224, 224], "dtype": "float32", "min": mn, "max": mx}
    diff = 0.0
    for i in range(k):
        p = np.asarray(pil_decode(blobs[i]).convert("RGB"))
        c = cv_decode(blobs[i])[:, :, ::-1]
        if p.shape != c.shape or (sizes and p.shape != sizes[i] + (3,)):
            raise ValueError("image %d: PIL %s, OpenCV %s, labels.csv %s" % (i, p.shape, c.shape, sizes and sizes[i]))
        diff = max(diff, float(np.abs(p.astype(np.int16) - c.astype(np.int16)).mean()))
    if diff > 2:
        raise ValueError("PIL and OpenCV (BGR reversed) decode differently: mean |diff| %.2f levels" % diff)
    checks["decode"] = {"checked": k, "max_mean_abs_diff_levels": diff}
    # The OpenCV pipeline against torchvision's functional ops on the same
    # boxes: the same values up to the resampling (torchvision antialiases
    # when it shrinks, cv2.INTER_LINEAR does not).
    worst = 0.0
    for i in range(k):
        im = Image.open(io.BytesIO(blobs[i])).convert("RGB")
        box = rrc_params(rng, im.width, im.height)
        ref = F.normalize(F.to_tensor(F.resized_crop(im, box[0], box[1], box[2], box[3], [224, 224])), MEAN, STD).numpy()
        got = cv_pipeline(blobs[i], box=box, flip=False)
        worst = max(worst, float(np.abs(ref.mean(axis=(1, 2)) - got.mean(axis=(1, 2))).max()))
    if worst > 0.05:
        raise ValueError("the OpenCV pipeline's channel means differ from torchvision's by %.3f on the same boxes" % worst)
    checks["opencv_vs_torchvision"] = {"checked": k, "max_channel_mean_diff": worst}
    log("checked %d outputs of each system" % k)

    # Timing: rounds of every system over every image.
    best = {}
    rounds = max(1, int(spec.get("rounds", 2)))
    for r in range(rounds + 1):  # round 0 warms up on a tenth of the images
        for name, pipe, fn in systems:
            m = n if r > 0 else max(1, n // 10)
            t = time.perf_counter()
            for b in blobs[:m]:
                fn(b)
            dt = time.perf_counter() - t
            if r > 0:
                best[name] = min(best.get(name, dt), dt)
                log("round %d/%d %-16s %8.1f images/s" % (r, rounds, name, m / dt))
    for name, pipe, _ in systems:
        report["results"].append({"system": name, "pipeline": pipe, "images_per_s": n / best[name], "rounds": rounds})


def rrc_params(rng, w, h, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop.get_params with Python's random."""
    import math

    area = w * h
    lr = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target = area * rng.uniform(scale[0], scale[1])
        ar = math.exp(rng.uniform(lr[0], lr[1]))
        cw = int(round(math.sqrt(target * ar)))
        ch = int(round(math.sqrt(target / ar)))
        if 0 < cw <= w and 0 < ch <= h:
            return rng.randint(0, h - ch), rng.randint(0, w - cw), ch, cw
    in_ratio = w / h
    if in_ratio < ratio[0]:
        cw, ch = w, int(round(w / ratio[0]))
    elif in_ratio > ratio[1]:
        ch, cw = h, int(round(h * ratio[1]))
    else:
        cw, ch = w, h
    return (h - ch) // 2, (w - cw) // 2, ch, cw


if __name__ == "__main__":
    main()
