"""End-to-end checks of `ogai preprocess` and of the Hugging Face image processors as
preprocessing.image programs (Gemma-4, Phi-3-V, Qwen2-VL / Qwen2.5-VL, Qwen3-VL).

Two oracles, both independent of ogai:
- Pillow + NumPy doing Hugging Face's Python processor steps (Image.open + exif_transpose +
  convert("RGB"), Pillow's resize, float64 rescale, float32 normalize, the processors' reshapes;
  PyTorch's bicubic interpolate written out in NumPy for Phi-3-V's global image), on images of
  every kind: gradients, noise, text-like strokes, 1x1, 2000x1500, portrait and landscape, RGBA,
  grayscale, CMYK JPEG, EXIF-rotated JPEG. Outputs within 1e-5, token counts equal. Phi-3-V's
  alpha composite over white is checked for every (value, alpha) pair against Pillow's.
- transformers.js (@huggingface/transformers, tests/media/hf_image_oracle.cjs through
  tests/peers/run_node.sh) on images already at the processor's target size (its resize goes
  through sharp without antialiasing, so it is not Pillow's): outputs within 1e-5, token counts
  equal.
The packages are written here (a preprocessing program, its adapter and emits); the CLI's output
format, --out (.npy files, existing files refused by name) and errors are checked too.
Usage: preprocess_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import copy
import json
import math
import os
import subprocess
import sys
import unittest

import numpy as np
from PIL import Image, ImageDraw, ImageOps

from cli_support import run, temp_dir
from wav_file import write_pcm16

OGAI = sys.argv.pop(1)
SOURCE = os.environ["OGAI_SOURCE_DIR"]
SHARED = os.environ["OGAI_SHARED_DIR"]
CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
RESCALE = 1 / 255

# ---------------------------------------------------------------- the programs (what an importer writes)


def contract(dtype, shape):
    return {"dtype": dtype, "rank": len(shape), "shape": shape}


def gemma4_program(patch=16, soft_tokens=280, pooling=3):
    max_patches = soft_tokens * pooling * pooling
    return {
        "transforms": [
            {"op": "decode_rgb", "outputs": ["rgb"]},
            {"op": "resize", "inputs": ["rgb"], "outputs": ["resized"], "mode": "aspect_ratio_patch_budget",
             "patch_size": patch, "max_patches": max_patches, "pooling_kernel_size": pooling,
             "interpolation": "bicubic"},
            {"op": "rescale", "inputs": ["resized"], "outputs": ["scaled"], "scale": RESCALE},
            {"op": "patchify", "inputs": ["scaled"], "outputs": ["patches"], "patch_size": patch,
             "channel_order": "channels_last", "patch_order": "raster", "coordinate_order": "xy"},
            {"op": "emit_patch_coordinates", "inputs": ["patches"], "outputs": ["coords"]},
            {"op": "emit_token_count", "inputs": ["patches"], "outputs": ["tokens"],
             "patches_per_token": pooling * pooling},
            {"op": "pad", "inputs": ["patches", "coords"], "outputs": ["padded", "padded_coords"],
             "target_length": max_patches, "pad_value": 0},
        ],
        "outputs": [
            {"name": "image.pixel_values", "content": "pixels", "dtype": "float32", "source": "padded",
             "contract": contract("float32", [1, max_patches, 3 * patch * patch])},
            {"name": "image.pixel_position_ids", "content": "patch_coordinates", "dtype": "int64",
             "source": "padded_coords", "pad_value": -1, "contract": contract("int64", [1, max_patches, 2])},
            {"name": "image.num_soft_tokens", "content": "token_count", "dtype": "int64", "source": "tokens",
             "contract": contract("int64", [1])},
        ],
    }


def qwen_program(patch, merge, temporal, min_pixels, max_pixels, mean, std):
    return {
        "transforms": [
            {"op": "decode_rgb", "outputs": ["rgb"]},
            {"op": "resize", "inputs": ["rgb"], "outputs": ["resized"], "mode": "pixel_area",
             "min_pixels": min_pixels, "max_pixels": max_pixels, "size_multiple": patch * merge,
             "interpolation": "bicubic"},
            {"op": "rescale", "inputs": ["resized"], "outputs": ["scaled"], "scale": RESCALE},
            {"op": "normalize", "inputs": ["scaled"], "outputs": ["normalized"], "mean": mean, "std": std},
            {"op": "patchify", "inputs": ["normalized"], "outputs": ["patches"], "patch_size": patch,
             "temporal_patch_size": temporal, "merge_size": merge},
            {"op": "emit_grid_coordinates", "inputs": ["patches"], "outputs": ["grid"]},
            {"op": "emit_token_count", "inputs": ["patches"], "outputs": ["tokens"]},
        ],
        "outputs": [
            {"name": "image.pixel_values", "content": "pixels", "dtype": "float32", "source": "patches",
             "contract": contract("float32", ["patches", 3 * temporal * patch * patch])},
            {"name": "image.image_grid_thw", "content": "grid_dimensions", "dtype": "int64", "source": "grid",
             "contract": contract("int64", [1, 3])},
            {"name": "image.num_image_tokens", "content": "token_count", "dtype": "int64", "source": "tokens",
             "contract": contract("int64", [1])},
        ],
    }


def phi3v_program(num_crops=4, tokens=144):
    return {
        "transforms": [
            {"op": "decode", "outputs": ["decoded"]},
            {"op": "convert_rgb", "inputs": ["decoded"], "outputs": ["rgb"], "background": [255, 255, 255]},
            {"op": "tile", "inputs": ["rgb"], "outputs": ["tiles"], "mode": "hd_transform", "tile_size": 336,
             "max_tiles": num_crops, "interpolation": "bilinear", "canvas_pad_value": 255,
             "thumbnail_order": "prepend", "include_thumbnail": True},
            {"op": "rescale", "inputs": ["tiles"], "outputs": ["scaled"], "scale": RESCALE},
            {"op": "normalize", "inputs": ["scaled"], "outputs": ["normalized"], "mean": CLIP_MEAN, "std": CLIP_STD},
            {"op": "emit_transformed_size", "inputs": ["normalized"], "outputs": ["sizes"]},
            {"op": "emit_token_count", "inputs": ["normalized"], "outputs": ["tokens"], "tokens_per_tile": tokens},
            {"op": "pad", "inputs": ["normalized"], "outputs": ["padded"], "target_length": num_crops + 1,
             "pad_value": 0},
        ],
        "outputs": [
            {"name": "image.pixel_values", "content": "pixels", "dtype": "float32", "source": "padded",
             "contract": contract("float32", [1, num_crops + 1, 3, 336, 336])},
            {"name": "image.image_sizes", "content": "transformed_size", "dtype": "int64", "source": "sizes",
             "contract": contract("int64", [1, 2])},
            {"name": "image.num_img_tokens", "content": "token_count", "dtype": "int64", "source": "tokens",
             "contract": contract("int64", [1])},
        ],
    }


QWEN2 = dict(patch=14, merge=2, temporal=2, min_pixels=56 * 56, max_pixels=28 * 28 * 1280, mean=CLIP_MEAN, std=CLIP_STD)
QWEN3 = dict(patch=16, merge=2, temporal=2, min_pixels=65536, max_pixels=16 * 16 * 4 * 1280, mean=[0.5] * 3,
             std=[0.5] * 3)


def write_package(parent, program, name="pkg"):
    """A v1 package whose workflow runs `program` through its image-preprocess adapter and emits
    every output."""
    d = os.path.join(parent, name)
    os.makedirs(d)
    ports, outputs, emits, invoke_outputs = {}, {}, [], {}
    for o in program["outputs"]:
        port = o["name"].split(".", 1)[1]
        ports[port] = o["contract"]
        invoke_outputs[port] = o["name"]
        outputs[port] = {"contract": o["contract"], "role": "tensor", "stage": "pre_adapter"}
        emits.append({"kind": "emit", "value": o["name"], "output": port, "mode": "replace"})
    doc = {
        "schema_version": "v1",
        "preprocessing": {"image": program},
        "pipeline": {"workflow": {
            "manifest": {"adapter_abis": {"onnx-genai.image-preprocess": "1"},
                         "capabilities": ["workflow_ssa", "typed_emit"]},
            "inputs": {"request.image": {"contract": contract("uint8", ["encoded_bytes"]),
                                         "role": {"kind": "runtime", "version": "1.0", "role": "media"},
                                         "source": {"kind": "request"}}},
            "outputs": outputs,
            "components": {"image_preprocess": {
                "implementation": {"kind": "adapter", "abi": "onnx-genai.image-preprocess", "version": "1"},
                "ports": {"inputs": {"encoded": contract("uint8", ["encoded_bytes"])}, "outputs": ports}}},
            "steps": [{"kind": "invoke", "component": "image_preprocess", "inputs": {"encoded": "request.image"},
                       "outputs": invoke_outputs}] + emits,
        }},
    }
    with open(os.path.join(d, "inference_metadata.json"), "w") as f:
        json.dump(doc, f)
    return d


# ---------------------------------------------------------------- test images


def pattern(kind, w, h, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    if kind == "gradient":
        a = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 255 // max(w + h - 2, 1)], -1)
    elif kind == "noise":
        a = rng.integers(0, 256, size=(h, w, 3))
    else:  # photo-like: a smooth field and noise
        base = 128 + 100 * np.sin(x / 17.0) * np.cos(y / 13.0)
        a = np.stack([base, base * 0.8 + 20, 255 - base], -1) + rng.normal(0, 12, size=(h, w, 3))
    return np.clip(a, 0, 255).astype(np.uint8)


def text_like(w, h):
    im = Image.new("RGB", (w, h), (250, 250, 245))
    draw = ImageDraw.Draw(im)
    for row in range(0, h - 12, 16):
        draw.text((4, row), "The quick brown fox jumps over 13 lazy dogs; HF == ogai?" * 3, fill=(10, 10, 30))
    return im


def make_images(d):
    """name -> path of every test image (written here, deterministic)."""
    out = {}

    def save(name, im, **kw):
        path = os.path.join(d, name)
        im.save(path, **kw)
        out[name] = path

    save("gradient_333x251.png", Image.fromarray(pattern("gradient", 333, 251)))
    save("noise_1024x768.jpg", Image.fromarray(pattern("noise", 1024, 768, 1)), quality=90)
    save("text_640x200.png", text_like(640, 200))
    save("one_1x1.png", Image.fromarray(np.array([[[200, 30, 60]]], np.uint8)))
    save("large_2000x1500.jpg", Image.fromarray(pattern("photo", 2000, 1500, 2)), quality=85)
    save("portrait_300x700.png", Image.fromarray(pattern("photo", 300, 700, 3)))
    save("landscape_700x300.jpg", Image.fromarray(pattern("photo", 700, 300, 4)), quality=92)
    save("gray_257x129.png", Image.fromarray(pattern("photo", 257, 129, 5)[:, :, 0]))
    rgba = np.concatenate([pattern("gradient", 120, 90), pattern("noise", 120, 90, 6)[:, :, :1]], -1)
    save("alpha_120x90.png", Image.fromarray(rgba, "RGBA"))
    save("cmyk_200x150.jpg", Image.fromarray(pattern("photo", 200, 150, 7)).convert("CMYK"), quality=95)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 clockwise to display
    save("exif6_320x200.jpg", Image.fromarray(pattern("photo", 320, 200, 8)), quality=95, exif=exif.tobytes())
    return out


def load_rgb(path):
    """What Hugging Face's load_image + convert_rgb make of a file."""
    return ImageOps.exif_transpose(Image.open(path)).convert("RGB")


def load_rgb_on_white(path, background=(255, 255, 255)):
    """Phi-3-V's convert_to_rgb: anything not RGB is composited over white."""
    im = ImageOps.exif_transpose(Image.open(path))
    if im.mode == "RGB":
        return im
    return Image.alpha_composite(Image.new("RGBA", im.size, background + (255,)), im.convert("RGBA")).convert("RGB")


# ---------------------------------------------------------------- Pillow + NumPy oracles (HF Python steps)


def rescale(a):
    return (a.astype(np.float64) * RESCALE).astype(np.float32)


def normalize(a, mean, std):  # HWC float32
    return ((a - np.array(mean, np.float32)) / np.array(std, np.float32)).astype(np.float32)


def gemma4_size(h, w, patch=16, max_patches=2520, pooling=3):
    factor = math.sqrt(max_patches * patch * patch / (h * w))
    side = pooling * patch
    th, tw = math.floor(factor * h / side) * side, math.floor(factor * w / side) * side
    max_side = max_patches // (pooling * pooling) * side
    if th == 0:
        th, tw = side, min(w // h * side, max_side)
    elif tw == 0:
        tw, th = side, min(h // w * side, max_side)
    return th, tw


def gemma4_oracle(path, patch=16, max_patches=2520, pooling=3):
    im = load_rgb(path)
    th, tw = gemma4_size(im.height, im.width, patch, max_patches, pooling)
    if (tw, th) != im.size:
        im = im.resize((tw, th), Image.Resampling.BICUBIC)
    a = rescale(np.asarray(im))
    ph, pw = th // patch, tw // patch
    patches = a.reshape(ph, patch, pw, patch, 3).transpose(0, 2, 1, 3, 4).reshape(ph * pw, patch * patch * 3)
    pixels = np.zeros((1, max_patches, patch * patch * 3), np.float32)
    pixels[0, :ph * pw] = patches
    pos = np.full((1, max_patches, 2), -1, np.int64)
    rows, cols = np.mgrid[0:ph, 0:pw]
    pos[0, :ph * pw] = np.stack([cols.ravel(), rows.ravel()], -1)
    return {"image.pixel_values": pixels, "image.pixel_position_ids": pos,
            "image.num_soft_tokens": np.array([ph * pw // (pooling * pooling)])}


def smart_resize(h, w, factor, min_pixels, max_pixels):
    hb, wb = round(h / factor) * factor, round(w / factor) * factor
    if hb * wb > max_pixels:
        beta = math.sqrt(h * w / max_pixels)
        hb, wb = max(factor, math.floor(h / beta / factor) * factor), max(factor, math.floor(w / beta / factor) * factor)
    elif hb * wb < min_pixels:
        beta = math.sqrt(min_pixels / (h * w))
        hb, wb = math.ceil(h * beta / factor) * factor, math.ceil(w * beta / factor) * factor
    return hb, wb


def qwen_oracle(path, patch, merge, temporal, min_pixels, max_pixels, mean, std):
    im = load_rgb(path)
    hb, wb = smart_resize(im.height, im.width, patch * merge, min_pixels, max_pixels)
    im = im.resize((wb, hb), Image.Resampling.BICUBIC)
    a = normalize(rescale(np.asarray(im)), mean, std).transpose(2, 0, 1)[None]
    a = np.repeat(a, temporal, axis=0)
    gh, gw = hb // patch, wb // patch
    p = a.reshape(1, temporal, 3, gh // merge, merge, patch, gw // merge, merge, patch)
    p = p.transpose(0, 3, 6, 4, 7, 2, 1, 5, 8).reshape(gh * gw, 3 * temporal * patch * patch)
    return {"image.pixel_values": p, "image.image_grid_thw": np.array([[1, gh, gw]]),
            "image.num_image_tokens": np.array([gh * gw // (merge * merge)])}


def torch_bicubic(chw, size):
    """torch.nn.functional.interpolate(mode="bicubic", align_corners=False), float32 coordinates."""
    def taps(n_in, n_out):
        scale = np.float32(n_in) / np.float32(n_out)
        real = scale * (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) - np.float32(0.5)
        base = np.floor(real)
        t = (real - base).astype(np.float32)
        a = np.float32(-0.75)

        def near(x):
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def far(x):
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        w = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], -1).astype(np.float64)
        idx = np.clip(base.astype(np.int64)[:, None] + np.arange(-1, 3)[None], 0, n_in - 1)
        return idx, w
    c, h, w = chw.shape
    yi, yw = taps(h, size)
    xi, xw = taps(w, size)
    x = chw.astype(np.float64)
    across = (x[:, :, xi] * xw[None, None]).sum(-1)          # [c, h, size]
    out = (across[:, yi, :] * yw[None, :, :, None]).sum(2)   # [c, size, size]
    return out.astype(np.float32)


def phi3v_oracle(path, num_crops=4, tokens=144):
    im = load_rgb_on_white(path)
    transposed = im.width < im.height
    if transposed:
        im = im.transpose(Image.Transpose.TRANSPOSE)
    w, h = im.size
    ratio = w / h
    scale = 1
    while scale * math.ceil(scale / ratio) <= num_crops:
        scale += 1
    scale -= 1
    new_w = int(scale * 336)
    new_h = int(new_w / ratio)
    im = im.resize((new_w, new_h), Image.Resampling.BILINEAR)
    tar = int(math.ceil(new_h / 336) * 336)
    top = int((tar - new_h) / 2)
    canvas = Image.new("RGB", (new_w, tar), (255, 255, 255))
    canvas.paste(im, (0, top))
    if transposed:
        canvas = canvas.transpose(Image.Transpose.TRANSPOSE)
    a = normalize(rescale(np.asarray(canvas)), CLIP_MEAN, CLIP_STD).transpose(2, 0, 1)
    hh, ww = a.shape[1:]
    crops = a.reshape(3, hh // 336, 336, ww // 336, 336).transpose(1, 3, 0, 2, 4).reshape(-1, 3, 336, 336)
    pixels = np.zeros((1, num_crops + 1, 3, 336, 336), np.float32)
    pixels[0, 0] = torch_bicubic(a, 336)
    pixels[0, 1:1 + len(crops)] = crops
    count = ((hh // 336) * (ww // 336) + 1) * tokens + 1 + (hh // 336 + 1) * int(math.sqrt(tokens))
    return {"image.pixel_values": pixels, "image.image_sizes": np.array([[hh, ww]]),
            "image.num_img_tokens": np.array([count])}


# ---------------------------------------------------------------- running ogai and transformers.js


def preprocess(test, pkg, images, out):
    """Runs `ogai preprocess PKG --image ... --out OUT`; returns {name: array} from the .npy files
    after checking the printed lines name the same tensors, dtypes and shapes."""
    args = ["preprocess", pkg]
    for p in images:
        args += ["--image", p]
    result = run(OGAI, *args, "--out", out, timeout=300)
    test.assertEqual(result.returncode, 0, result.stderr)
    arrays = {}
    for line in result.stdout.splitlines():
        name, dtype, shape = line.split(" ", 2)
        a = np.load(os.path.join(out, name + ".npy"))
        test.assertEqual(str(a.dtype), dtype, line)
        test.assertEqual(list(a.shape), json.loads(shape), line)
        arrays[name] = a
    test.assertEqual(sorted(os.listdir(out)), sorted(n + ".npy" for n in arrays))
    return arrays


def transformers_js(test, jobs, d):
    """Runs tests/media/hf_image_oracle.cjs on `jobs`; returns one {name: array} per job."""
    path = os.path.join(d, "jobs.json")
    for i, job in enumerate(jobs):
        job["out"] = os.path.join(d, f"oracle{i}")
    with open(path, "w") as f:
        json.dump(jobs, f)
    node = [os.path.join(SOURCE, "tests", "peers", "run_node.sh"),
            os.path.join(SOURCE, "tests", "media", "hf_image_oracle.cjs"), path]
    result = subprocess.run(node, capture_output=True, text=True, timeout=600)
    test.assertEqual(result.returncode, 0, result.stderr)
    results = []
    for job in jobs:
        with open(job["out"] + ".json") as f:
            meta = json.load(f)
        results.append({name: np.fromfile(f"{job['out']}.{name}.bin", np.float32 if m["dtype"] == "float32" else np.int64)
                        .reshape(m["shape"]) for name, m in meta.items()})
    return results


def assert_close(test, got, want, what):
    test.assertEqual(list(got.shape), list(want.shape), what)
    if got.dtype.kind == "f":
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        test.assertLessEqual(float(diff.max()) if diff.size else 0.0, 1e-5,
                             f"{what}: worst at {np.unravel_index(diff.argmax(), diff.shape)}")
    else:
        np.testing.assert_array_equal(got, want, what)


class Processors(unittest.TestCase):
    """Each family on every test image against Pillow + NumPy (HF's Python steps)."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.dir = tempfile.mkdtemp(prefix="ogai_preprocess_")
        cls.images = make_images(cls.dir)

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.dir, True)

    def check_family(self, program, oracle, names):
        d = temp_dir(self)
        pkg = write_package(d, program)
        paths = [self.images[n] for n in names]
        got = preprocess(self, pkg, paths, os.path.join(d, "out"))
        for k, (name, path) in enumerate(zip(names, paths)):
            for tensor, want in oracle(path).items():
                with self.subTest(image=name, tensor=tensor):
                    assert_close(self, got[f"{tensor}.{k}"], want, f"{name} {tensor}")

    def test_gemma4(self):
        self.check_family(gemma4_program(), gemma4_oracle, sorted(self.images))

    def test_qwen2_vl(self):
        self.check_family(qwen_program(**QWEN2), lambda p: qwen_oracle(p, **QWEN2),
                          [n for n in sorted(self.images) if "large" not in n])

    def test_qwen3_vl(self):
        self.check_family(qwen_program(**QWEN3), lambda p: qwen_oracle(p, **QWEN3),
                          ["gradient_333x251.png", "one_1x1.png", "portrait_300x700.png", "exif6_320x200.jpg",
                           "cmyk_200x150.jpg"])

    def test_phi3_v(self):
        self.check_family(phi3v_program(), phi3v_oracle, sorted(self.images))

    def test_phi3_v_sixteen_crops(self):
        self.check_family(phi3v_program(num_crops=16), lambda p: phi3v_oracle(p, num_crops=16),
                          ["landscape_700x300.jpg", "portrait_300x700.png"])


class Composite(unittest.TestCase):
    def test_alpha_over_a_background_equals_pillow_for_every_value_and_alpha(self):
        d = temp_dir(self)
        a = np.zeros((256, 256, 4), np.uint8)
        y, x = np.mgrid[0:256, 0:256]
        a[..., 0], a[..., 1], a[..., 2], a[..., 3] = x, 255 - x, (x * 7) % 256, y
        img = os.path.join(d, "rgba.png")
        Image.fromarray(a, "RGBA").save(img)
        la = os.path.join(d, "la.png")
        Image.fromarray(a[..., [0, 3]], "LA").save(la)
        for background in [(255, 255, 255), (10, 200, 77)]:
            program = {
                "transforms": [
                    {"op": "decode", "outputs": ["decoded"]},
                    {"op": "convert_rgb", "inputs": ["decoded"], "outputs": ["rgb"], "background": list(background)},
                    {"op": "rescale", "inputs": ["rgb"], "outputs": ["pixels"], "scale": 1.0}],
                "outputs": [{"name": "image.pixels", "content": "pixels", "dtype": "float32", "source": "pixels",
                             "contract": contract("float32", [1, 3, 256, 256])}]}
            pkg = write_package(d, program, f"pkg{background[1]}")
            got = preprocess(self, pkg, [img, la], os.path.join(d, f"out{background[1]}"))
            for k, path in enumerate([img, la]):
                want = np.asarray(load_rgb_on_white(path, background)).transpose(2, 0, 1)[None].astype(np.float32)
                np.testing.assert_array_equal(got[f"image.pixels.{k}"], want, f"{path} over {background}")


class TransformersJs(unittest.TestCase):
    """The same programs against transformers.js on images at the processor's own target size."""

    def test_all_families(self):
        d = temp_dir(self)
        cases = []  # (family, program, config, image path)

        def png(name, w, h, kind="photo", mode="RGB"):
            path = os.path.join(d, name)
            a = pattern(kind, w, h, len(cases) + 11)
            im = Image.fromarray(a)
            if mode == "L":
                im = Image.fromarray(a[:, :, 0])
            im.save(path)
            return path

        gemma = {"patch_size": 16, "max_soft_tokens": 280, "pooling_kernel_size": 3}
        for w, h in [(1024, 768), (768, 1024), (1500, 500), (300, 1200), (640, 640)]:
            th, tw = gemma4_size(h, w)
            if gemma4_size(th, tw) == (th, tw):  # a size the processor keeps
                cases.append(("gemma4", gemma4_program(), gemma, png(f"g{len(cases)}.png", tw, th, "noise")))
        self.assertGreaterEqual(len(cases), 3)
        cases.append(("gemma4", gemma4_program(), gemma, png("g_gray.png", 912, 672, mode="L")))
        q2 = {"patch_size": 14, "merge_size": 2, "temporal_patch_size": 2, "min_pixels": QWEN2["min_pixels"],
              "max_pixels": QWEN2["max_pixels"], "image_mean": CLIP_MEAN, "image_std": CLIP_STD, "do_resize": True,
              "do_rescale": True, "rescale_factor": RESCALE, "do_normalize": True, "do_convert_rgb": True}
        for w, h in [(644, 476), (112, 28), (1120, 840), (56, 1400)]:
            cases.append(("qwen2vl", qwen_program(**QWEN2), q2, png(f"q2_{w}x{h}.png", w, h)))
        q3 = dict(q2, patch_size=16, min_pixels=QWEN3["min_pixels"], max_pixels=QWEN3["max_pixels"],
                  image_mean=[0.5] * 3, image_std=[0.5] * 3)
        for w, h in [(320, 256), (512, 384)]:
            cases.append(("qwen3vl", qwen_program(**QWEN3), q3, png(f"q3_{w}x{h}.png", w, h)))
        phi = {"num_crops": 4, "num_img_tokens": 144, "image_mean": CLIP_MEAN, "image_std": CLIP_STD,
               "do_rescale": True, "rescale_factor": RESCALE}
        heights = [h for h in (672, 600, 504, 420, 337) if int(672 / (672 / h)) == h]
        self.assertGreaterEqual(len(heights), 2)
        for h in heights:
            cases.append(("phi3v", phi3v_program(), phi, png(f"p_{h}.png", 672, h, "gradient" if h % 2 else "photo")))
        jobs = [{"family": "qwen2vl" if f.startswith("qwen") else f, "config": c, "image": p} for f, _, c, p in cases]
        oracle = transformers_js(self, jobs, d)
        renames = {"position_ids": "pixel_position_ids", "image_grid_thw": "image_grid_thw",
                   "image_sizes": "image_sizes", "pixel_values": "pixel_values"}
        for i, (family, program, _, path) in enumerate(cases):
            got = preprocess(self, write_package(d, program, f"pkg{i}"), [path], os.path.join(d, f"out{i}"))
            counts = [n for n in got if n.endswith("tokens")]
            for name, want in oracle[i].items():
                with self.subTest(case=i, family=family, image=os.path.basename(path), tensor=name):
                    mine = got[counts[0]] if name == "token_count" else got["image." + renames[name]]
                    assert_close(self, mine, want, f"{family} {path} {name}")


class Cli(unittest.TestCase):
    def test_prints_and_writes_each_tensor(self):
        d = temp_dir(self)
        pkg = write_package(d, gemma4_program())
        img = os.path.join(d, "a.png")
        Image.fromarray(pattern("noise", 50, 40)).save(img)
        result = run(OGAI, "preprocess", pkg, "--image", img)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(), [
            "image.pixel_values float32 [1, 2520, 768]", "image.pixel_position_ids int64 [1, 2520, 2]",
            "image.num_soft_tokens int64 [1]"])
        out = os.path.join(d, "out")
        result = run(OGAI, "preprocess", pkg, "--image", img, "--image", img, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(result.stdout.splitlines()), 6)
        self.assertIn("image.num_soft_tokens.1 int64 [1]", result.stdout)
        a, b = np.load(os.path.join(out, "image.pixel_values.0.npy")), np.load(os.path.join(out, "image.pixel_values.1.npy"))
        np.testing.assert_array_equal(a, b)

    def test_existing_files_are_refused_by_name(self):
        d = temp_dir(self)
        pkg = write_package(d, gemma4_program())
        img = os.path.join(d, "a.png")
        Image.fromarray(pattern("noise", 64, 64)).save(img)
        out = os.path.join(d, "out")
        os.makedirs(out)
        mine = os.path.join(out, "image.pixel_position_ids.npy")
        with open(mine, "w") as f:
            f.write("user data")
        result = run(OGAI, "preprocess", pkg, "--image", img, "--out", out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("image.pixel_position_ids.npy", result.stderr)
        self.assertIn("already exists", result.stderr)
        with open(mine) as f:
            self.assertEqual(f.read(), "user data")
        self.assertEqual(os.listdir(out), ["image.pixel_position_ids.npy"])  # nothing else written

    def test_errors(self):
        d = temp_dir(self)
        pkg = write_package(d, gemma4_program())
        self.assertEqual(run(OGAI, "preprocess", pkg).returncode, 2)
        bad = os.path.join(d, "bad.png")
        with open(bad, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
        result = run(OGAI, "preprocess", pkg, "--image", bad)
        self.assertEqual(result.returncode, 1)
        self.assertIn("bad.png", result.stderr)
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        for hostile in ["/dev/zero", fifo]:  # refused by type, never read or waited on
            result = run(OGAI, "preprocess", pkg, "--image", hostile, timeout=20)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(hostile, result.stderr)
        self.assertEqual(run(OGAI, "preprocess", pkg, "--image", os.path.join(d, "missing.png")).returncode, 2)
        wav = os.path.join(d, "a.wav")
        write_pcm16(wav, np.zeros(1600), 16000)
        result = run(OGAI, "preprocess", pkg, "--audio", wav)
        self.assertEqual(result.returncode, 1)
        self.assertIn("preprocessing.audio", result.stderr)
        broken = copy.deepcopy(gemma4_program())
        broken["transforms"][5]["tokens_per_tile"] = 144  # counts tiles, but reads patches
        del broken["transforms"][5]["patches_per_token"]
        result = run(OGAI, "preprocess", write_package(d, broken, "broken"), "--image", bad)
        self.assertEqual(result.returncode, 1)
        self.assertIn("transforms[5]", result.stderr)

    def test_conformance_vlm_fixture(self):
        d = temp_dir(self)
        img = os.path.join(d, "red.png")
        Image.new("RGB", (1, 1), (255, 0, 0)).save(img)
        fixture = os.path.join(SHARED, "conformance", "metadata", "fixtures", "vlm")
        got = preprocess(self, fixture, [img], os.path.join(d, "out"))
        want = qwen_oracle(img, patch=14, merge=1, temporal=2, min_pixels=224, max_pixels=224, mean=[0.5] * 3,
                           std=[0.5] * 3)
        assert_close(self, got["image.pixel_values"], want["image.pixel_values"], "vlm pixel_values")
        assert_close(self, got["image.grid_thw"], want["image.image_grid_thw"], "vlm grid_thw")
        self.assertEqual(got["image.pixel_values"].shape, (4, 1176))

    def test_audio_program(self):
        d = temp_dir(self)
        doc = {"schema_version": "v1", "preprocessing": {"audio": {
            "transforms": [
                {"op": "decode", "outputs": ["samples"]},
                {"op": "resample", "inputs": ["samples"], "outputs": ["resampled"], "sample_rate": 16000},
                {"op": "pad", "inputs": ["resampled"], "outputs": ["windowed"], "mode": "fixed_window",
                 "target_length": 16000, "pad_value": 0.0},
                {"op": "log_mel", "inputs": ["windowed"], "outputs": ["mel"], "num_mel_bins": 80, "n_fft": 400,
                 "hop_length": 160, "window": "hann", "mel_scale": "slaney", "sample_rate": 16000},
                {"op": "normalize", "inputs": ["mel"], "outputs": ["features"], "mode": "whisper_log_mel"},
                {"op": "emit_valid_frames", "inputs": ["windowed"], "outputs": ["valid_frames"]}],
            "outputs": [
                {"source": "features", "name": "audio.input_features", "content": "audio_features", "dtype": "float32",
                 "contract": contract("float32", [1, 80, "frames"])},
                {"source": "valid_frames", "name": "audio.valid_frames", "content": "valid_frames", "dtype": "int64",
                 "contract": contract("int64", [1])}]}},
            "pipeline": {"workflow": {
                "manifest": {"adapter_abis": {"onnx-genai.audio-preprocess": "1"},
                             "capabilities": ["workflow_ssa", "typed_emit"]},
                "inputs": {"request.audio": {"contract": contract("uint8", ["encoded_bytes"]),
                                             "role": {"kind": "runtime", "version": "1.0", "role": "media"},
                                             "source": {"kind": "request"}}},
                "outputs": {"features": {"contract": contract("float32", [1, 80, "frames"]), "role": "tensor",
                                         "stage": "pre_adapter"},
                            "valid_frames": {"contract": contract("int64", [1]), "role": "tensor",
                                             "stage": "pre_adapter"}},
                "components": {"audio_preprocess": {
                    "implementation": {"kind": "adapter", "abi": "onnx-genai.audio-preprocess", "version": "1"},
                    "ports": {"inputs": {"encoded": contract("uint8", ["encoded_bytes"])},
                              "outputs": {"input_features": contract("float32", [1, 80, "frames"]),
                                          "valid_frames": contract("int64", [1])}}}},
                "steps": [{"kind": "invoke", "component": "audio_preprocess", "inputs": {"encoded": "request.audio"},
                           "outputs": {"input_features": "audio.input_features",
                                       "valid_frames": "audio.valid_frames"}},
                          {"kind": "emit", "value": "audio.input_features", "output": "features", "mode": "replace"},
                          {"kind": "emit", "value": "audio.valid_frames", "output": "valid_frames",
                           "mode": "replace"}]}}}
        pkg = os.path.join(d, "audio_pkg")
        os.makedirs(pkg)
        with open(os.path.join(pkg, "inference_metadata.json"), "w") as f:
            json.dump(doc, f)
        wav = os.path.join(d, "tone.wav")
        t = np.arange(9600) / 16000
        write_pcm16(wav, (0.3 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2"), 16000)
        out = os.path.join(d, "out")
        result = run(OGAI, "preprocess", pkg, "--audio", wav, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(), ["audio.input_features float32 [1, 80, 100]",
                                                      "audio.valid_frames int64 [1]"])
        self.assertEqual(np.load(os.path.join(out, "audio.valid_frames.npy")).tolist(), [60])
        run_json = run(OGAI, "run", pkg, "--input", f"request.audio=@{wav}", "--json")
        self.assertEqual(run_json.returncode, 0, run_json.stderr)
        features = json.loads(run_json.stdout)["outputs"]["features"]
        np.testing.assert_array_equal(np.load(os.path.join(out, "audio.input_features.npy")),
                                      np.array(features["data"], np.float32).reshape(features["shape"]))


if __name__ == "__main__":
    unittest.main()
