#!/usr/bin/python3
"""Generates antialias.json: torchvision's and PIL's antialiased bilinear
resizes of crops of a small synthetic image, the test vectors of
pipeline's Antialias option (TestAntialiasTorchvision). Run once with
Debian's Python (torch 1.13, torchvision 0.14, PIL 9.4):

    /usr/bin/python3 pipeline/testdata/gen_antialias.py > pipeline/testdata/antialias.json

The Go tests read only the JSON; they do not need Python.
"""
import json
import sys

import PIL
import torch
import torchvision
import torchvision.transforms.functional as F
from PIL import Image

W, H = 29, 23


def pixel(x, y, k):
    # Smooth ramps, sharp blocks and a little deterministic noise, so
    # that a filter's width shows.
    v = 3 * x + 5 * y + 40 * k
    if (x // 4 + y // 3) % 2 == 0:
        v += 90
    v += (x * 7919 + y * 104729 + k * 31) % 17
    return v % 256


pix = [pixel(x, y, k) for y in range(H) for x in range(W) for k in range(3)]
img_t = torch.tensor(pix, dtype=torch.uint8).reshape(H, W, 3).permute(2, 0, 1).contiguous()
img_p = Image.frombytes("RGB", (W, H), bytes(pix))

# (left, top, width, height, size): shrinks by 2, 3, 4 and fractions,
# enlargements, a crop that shrinks one axis and enlarges the other, the
# whole image, crops touching the image's edges.
cases = [
    (0, 0, 29, 23, 7),    # whole image, 4.1x by 3.3x
    (0, 0, 28, 20, 14),   # 2x by 1.43x
    (2, 1, 24, 24 - 2, 8),  # 3x by 2.75x
    (3, 3, 24, 20, 6),    # 4x by 3.33x
    (5, 2, 20, 19, 7),    # 2.86x by 2.71x
    (1, 4, 12, 11, 8),    # 1.5x by 1.38x
    (6, 5, 9, 8, 15),     # enlarge 1.67x by 1.88x
    (10, 7, 5, 6, 12),    # enlarge 2.4x by 2x
    (0, 10, 25, 6, 10),   # shrink 2.5x across, enlarge 1.67x down
    (4, 0, 13, 23, 13),   # identity across, shrink 1.77x down
]
out = {
    "generator": "pipeline/testdata/gen_antialias.py",
    "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__, "PIL": PIL.__version__},
    "width": W, "height": H, "channels": 3, "pixels": pix, "cases": [],
}
for left, top, w, h, s in cases:
    tv = F.resized_crop(img_t, top, left, h, w, [s, s], interpolation=F.InterpolationMode.BILINEAR, antialias=True)
    pl = img_p.resize((s, s), Image.BILINEAR, box=(left, top, left + w, top + h))
    out["cases"].append({
        "box": [left, top, left + w, top + h], "size": s,
        # torchvision on a uint8 tensor: crop, then resize in float, round.
        "torchvision": tv.permute(1, 2, 0).reshape(-1).tolist(),
        # PIL's resize with a box on the whole image: the filter reads
        # pixels beyond the box, inside the image; 8-bit fixed point with
        # an 8-bit intermediate image.
        "pil_box": list(pl.tobytes()),
    })
json.dump(out, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
