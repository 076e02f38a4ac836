#!/usr/bin/python3
"""Writes the Pillow oracle for tests/media (run by media_test with Debian's /usr/bin/python3).

Usage: pillow_cases.py OUT_DIR. Writes source images in every format ogai decodes, what Pillow
makes of them (ImageOps.exif_transpose(Image.open(f)).convert("RGB")), and Pillow's
Image.resize of RGB and L images with every filter, up and down, as raw bytes, listed in
OUT_DIR/manifest.json. Also writes hostile files (truncated, corrupt, a decompression bomb header,
wrong type). Deterministic (seeded)."""
import io
import json
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image, ImageOps

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1234)
manifest = {"decode": [], "resize": [], "hostile": [], "qwen": []}


def pattern(kind, w, h, channels=3):
    y, x = np.mgrid[0:h, 0:w]
    if kind == "gradient":
        planes = [(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 255 // max(w + h - 2, 1))]
        a = np.stack(planes[:channels], axis=-1)
    elif kind == "noise":
        a = rng.integers(0, 256, size=(h, w, channels))
    elif kind == "checker":
        c = (((x // 3) + (y // 3)) % 2) * 255
        a = np.stack([c, 255 - c, (c // 2)][:channels], axis=-1)
    else:  # photo-like: smooth field + noise
        base = 128 + 100 * np.sin(x / 7.0) * np.cos(y / 11.0)
        a = np.stack([base, base * 0.8 + 20, 255 - base][:channels], axis=-1) + rng.normal(0, 12, size=(h, w, channels))
    a = np.clip(a, 0, 255).astype(np.uint8)
    return a[:, :, 0] if channels == 1 else a


def save_raw(name, im):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(im.tobytes())
    return name


def add_decode(name, data, expect, note=""):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    exp = expect.convert("RGB")
    manifest["decode"].append({"file": name, "expected": save_raw(name + ".rgb", exp),
                               "width": exp.width, "height": exp.height, "note": note})


def pillow_view(data):
    return ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")


def encode(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


# --- decoding: every format and mode -------------------------------------------------------
photo = Image.fromarray(pattern("photo", 97, 61))
gray = Image.fromarray(pattern("gradient", 45, 33, 1), "L")
rgba = Image.fromarray(np.dstack([pattern("noise", 40, 28), pattern("gradient", 40, 28, 1)]), "RGBA")
cases = {
    "photo.png": encode(photo, "PNG"),
    "gray.png": encode(gray, "PNG"),
    "gray1.png": encode(gray.convert("1"), "PNG"),
    "la.png": encode(rgba.convert("LA"), "PNG"),
    "rgba.png": encode(rgba, "PNG"),
    "palette.png": encode(photo.convert("P", palette=Image.Palette.ADAPTIVE, colors=37), "PNG"),
    "palette4.png": encode(photo.convert("P", palette=Image.Palette.ADAPTIVE, colors=16), "PNG", bits=4),
    "q90.jpg": encode(photo, "JPEG", quality=90),
    "q75_444.jpg": encode(photo, "JPEG", quality=75, subsampling=0),
    "progressive.jpg": encode(photo, "JPEG", quality=85, progressive=True),
    "gray.jpg": encode(gray, "JPEG", quality=90),
    "cmyk.jpg": encode(photo.convert("CMYK"), "JPEG", quality=92),
    "lossy.webp": encode(photo, "WEBP", quality=80),
    "lossless.webp": encode(photo, "WEBP", lossless=True),
    "alpha.webp": encode(rgba, "WEBP", quality=90),
    "photo.gif": encode(photo, "GIF"),
    "gray.gif": encode(gray, "GIF"),
    "rgb24.bmp": encode(photo, "BMP"),
    "palette8.bmp": encode(photo.convert("P", palette=Image.Palette.ADAPTIVE, colors=200), "BMP"),
    "gray.bmp": encode(gray, "BMP"),
}
# A 16-bit RGB PNG (Pillow keeps the high byte of each sample).
rgb16 = (pattern("noise", 23, 19).astype(">u2") * 257 + rng.integers(0, 256, size=(19, 23, 3))).astype(">u2")


def png_chunk(tag, payload):
    return struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", zlib.crc32(tag + payload) & 0xffffffff)


def png_bytes(w, h, depth, color, raw_rows, extra=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0)
    idat = zlib.compress(b"".join(b"\x00" + r for r in raw_rows))
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")


cases["rgb16.png"] = png_bytes(23, 19, 16, 2, [rgb16[r].tobytes() for r in range(19)])
for name, data in cases.items():
    if data is not None:
        add_decode(name, data, pillow_view(data))

# A 16-bit grayscale PNG: Pillow opens it as mode I and clips every value over 255 to white when
# converting to RGB; ogai keeps the high byte, like 16-bit RGB (a deliberate difference,
# docs/media.md), so the expectation here is NumPy's, not Pillow's.
gray16 = (np.arange(35 * 27, dtype=np.uint32).reshape(27, 35) * 77 % 65536).astype(">u2")
gray16_png = png_bytes(35, 27, 16, 0, [gray16[r].tobytes() for r in range(27)])
add_decode("gray16.png", gray16_png, Image.fromarray((gray16.astype(np.uint16) >> 8).astype(np.uint8), "L"),
           note="high byte, not Pillow's clip")

# EXIF orientations 1..8 on a JPEG and a PNG, checked against ImageOps.exif_transpose.
asym = Image.fromarray(pattern("gradient", 31, 17))
for o in range(1, 9):
    exif = Image.Exif()
    exif[0x0112] = o
    for fmt, ext in (("JPEG", "jpg"), ("PNG", "png"), ("WEBP", "webp")):
        kw = {"quality": 95} if fmt != "PNG" else {}
        data = encode(asym, fmt, exif=exif.tobytes(), **kw)
        add_decode(f"orient{o}.{ext}", data, pillow_view(data), note=f"orientation {o}")

# --- resizing: Pillow's Image.resize, RGB and L --------------------------------------------
filters = {"nearest": Image.Resampling.NEAREST, "box": Image.Resampling.BOX, "bilinear": Image.Resampling.BILINEAR,
           "hamming": Image.Resampling.HAMMING, "bicubic": Image.Resampling.BICUBIC, "lanczos": Image.Resampling.LANCZOS}
sources = [("gradient", 64, 48), ("noise", 37, 53), ("checker", 100, 30), ("photo", 1, 1), ("photo", 5, 3),
           ("photo", 333, 251), ("noise", 17, 240)]
for kind, w, h in sources:
    for channels in (3, 1):
        arr = pattern(kind, w, h, channels)
        im = Image.fromarray(arr, "RGB" if channels == 3 else "L")
        src = f"src_{kind}_{w}x{h}_{channels}.raw"
        save_raw(src, im)
        targets = {(max(1, w // 2), max(1, h // 2)), (max(1, w * 3 // 10), max(1, h * 7 // 10)), (w * 2, h * 3),
                   (w + 7, max(1, h - 1)), (28, 28), (max(1, w // 7), max(1, h // 5)), (w, h * 2 + 1)}
        for tw, th in sorted(targets):
            for fname, f in filters.items():
                res = im.resize((tw, th), f)
                manifest["resize"].append({"source": src, "width": w, "height": h, "channels": channels,
                                           "filter": fname, "out_width": tw, "out_height": th,
                                           "expected": save_raw(f"{src}.{fname}.{tw}x{th}", res)})

# --- a Qwen2-VL pipeline (Hugging Face's Qwen2VLImageProcessor steps in Pillow + NumPy) ---------
MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


def smart_resize(height, width, factor=28, min_pixels=56 * 56, max_pixels=28 * 28 * 1280):
    import math
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def qwen_patches(im, patch=14, temporal=2, merge=2):
    h, w = smart_resize(im.height, im.width)
    img = np.asarray(im.convert("RGB").resize((w, h), Image.Resampling.BICUBIC))
    img = (img.astype(np.float64) * (1 / 255)).astype(np.float32)
    img = ((img - MEAN) / STD).astype(np.float32).transpose(2, 0, 1)[None]  # [1, C, H, W]
    img = np.repeat(img, temporal, axis=0)
    gh, gw = h // patch, w // patch
    p = img.reshape(1, temporal, 3, gh // merge, merge, patch, gw // merge, merge, patch)
    p = p.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8).reshape(gh * gw, 3 * temporal * patch * patch)
    return np.ascontiguousarray(p, dtype=np.float32), [1, gh, gw]


red = encode(Image.new("RGB", (1, 1), (255, 0, 0)), "PNG")
qwen_inputs = {"red1x1.png": red, "photo.png": cases["photo.png"], "q90.jpg": cases["q90.jpg"],
               "wide.png": encode(Image.fromarray(pattern("photo", 333, 251)), "PNG"),
               "tall.jpg": encode(Image.fromarray(pattern("photo", 90, 700)), "JPEG", quality=90),
               "big.jpg": encode(Image.fromarray(pattern("photo", 1024, 768)), "JPEG", quality=90)}
for name, data in qwen_inputs.items():
    fname = "qwen_" + name
    with open(os.path.join(out, fname), "wb") as f:
        f.write(data)
    patches, grid = qwen_patches(Image.open(io.BytesIO(data)))
    patches.tofile(os.path.join(out, fname + ".f32"))
    manifest["qwen"].append({"file": fname, "rows": patches.shape[0], "feature": patches.shape[1], "grid": grid})

# --- hostile files ---------------------------------------------------------------------------
def hostile(name, data, expect):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    manifest["hostile"].append({"file": name, "expect": expect})


png = cases["photo.png"]
jpg = cases["q90.jpg"]
hostile("truncated.png", png[: len(png) // 2], "truncated")
hostile("truncated.jpg", jpg[: len(jpg) // 2], "truncated")
hostile("truncated.gif", cases["photo.gif"][: len(cases["photo.gif"]) // 2], "GIF")
hostile("truncated.webp", cases["lossy.webp"][: len(cases["lossy.webp"]) // 2], "WebP")
hostile("header_only.png", png[:20], "PNG")
corrupt = bytearray(png)
corrupt[len(corrupt) // 2] ^= 0xFF
hostile("corrupt.png", bytes(corrupt), "PNG")
cj = bytearray(jpg)
for i in range(len(cj) // 2, len(cj) // 2 + 64):
    cj[i] = 0xFF if i % 2 else 0xD9
hostile("corrupt.jpg", bytes(cj), "JPEG")
# A 60,000 x 60,000 RGB PNG header with one tiny (valid) IDAT: a decompression bomb.
bomb = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)) +
        png_chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + png_chunk(b"IEND", b""))
hostile("bomb.png", bomb, "limit")
hostile("bomb.gif", b"GIF89a" + struct.pack("<HH", 65535, 65535) + b"\x00\x00\x00" +
        b"\x2c\x00\x00\x00\x00\xff\xff\xff\xff\x00\x02\x02\x44\x01\x00\x3b", "limit")
hostile("not_an_image.txt", b"%PDF-1.4 this is not an image\n", "not an image")
hostile("empty.png", b"", "empty")

with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print(f"{len(manifest['decode'])} decode, {len(manifest['resize'])} resize, {len(manifest['hostile'])} hostile cases")
