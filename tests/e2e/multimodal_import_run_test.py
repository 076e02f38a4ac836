"""An imported ONNX Runtime GenAI multimodal folder runs as written (issue 35, item 1): the
computing gemma4 stand-in that tools/genai/multimodal.py writes (CTest fixture
`importer_multimodal_folders`) goes through `ogai run` -- its preprocessing.image program made
from processor_config.json's Gemma4ImageTransform, the vision, embedding and KV decoder graphs --
and the logits equal an independent computation here: Pillow's bicubic resize to the patch
budget's size, NumPy for the patches, positions and the three graphs (weights read with onnx).
The shared gemma4 dummies (no nodes: fixed outputs whatever they are fed) are refused at the
first step whose output does not fit, naming the output and the shape.
Usage: multimodal_import_run_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import math
import os
import sys
import unittest

import numpy as np
import onnx
from onnx import numpy_helper
from PIL import Image

from cli_support import BINARY, SHARED, json_line, run, temp_dir

OGAI = sys.argv.pop(1)
FOLDERS = os.path.join(BINARY, "importer_folders", "multimodal")
STAND_IN = os.path.join(FOLDERS, "mm-gemma4")
PATCH, SOFT, POOL, IMAGE_ID = 4, 16, 2, 60


def weights(graph):
    model = onnx.load(os.path.join(STAND_IN, graph))
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def budget_size(width, height):
    """Gemma's aspect-ratio-preserving size within max_patches patches (Hugging Face's rule)."""
    max_patches = SOFT * POOL * POOL
    factor = math.sqrt(max_patches * PATCH * PATCH / (width * height))
    side = PATCH * POOL
    return int(math.floor(width * factor / side)) * side, int(math.floor(height * factor / side)) * side


def oracle(image_path, ids):
    """Logits [1, len(ids), 64] of the stand-in, computed without ogai."""
    image = Image.open(image_path).convert("RGB")
    width, height = budget_size(*image.size)
    pixels = np.asarray(image.resize((width, height), Image.BICUBIC), np.float32) * np.float32(1 / 255)
    rows, cols = height // PATCH, width // PATCH
    patches = pixels.reshape(rows, PATCH, cols, PATCH, 3).transpose(0, 2, 1, 3, 4).reshape(rows * cols, -1)
    coords = np.array([[x, y] for y in range(rows) for x in range(cols)], np.float32)
    v = weights("vision.onnx")
    per_patch = patches @ v["wp"] + coords @ v["wxy"]
    features = per_patch.reshape(-1, POOL * POOL, per_patch.shape[-1]).mean(axis=1)
    e = weights("embedding.onnx")
    embeds = e["table"][np.array(ids)].copy()
    image_rows = [i for i, t in enumerate(ids) if t == IMAGE_ID]
    assert len(image_rows) == len(features), (len(image_rows), len(features))
    embeds[image_rows] = features
    d = weights("text.onnx")
    x = embeds + np.arange(len(ids), dtype=np.float32)[:, None] * d["wpos"]
    values = (x @ d["wv"]).reshape(len(ids), 2, 8).transpose(1, 0, 2)  # [heads, t, head]
    memory = values.mean(axis=1).reshape(-1) @ d["wm"]
    return (x @ d["wo"] + memory)[None], len(features)


def run_folder(test, folder, image_path, ids, heads=2, head=8):
    past = os.path.join(temp_dir(test), "past.npy")
    np.save(past, np.zeros((1, heads, 0, head), np.float32))
    n = len(ids)
    return run(OGAI, "run", folder, "--json", "--input", f"request.image=@{image_path}",
               "--input", f"request.input_ids={json.dumps([ids])}",
               "--input", f"request.attention_mask={json.dumps([[1] * n])}",
               "--input", f"request.position_ids={json.dumps([list(range(n))])}",
               "--input", f"request.full_key_0=@{past}", "--input", f"request.full_value_0=@{past}",
               "--input", "request.active=[true]", "--input", "request.done=[false]",
               "--input", "request.accepted_len=[0]")


def noise_image(test, width, height, seed):
    path = os.path.join(temp_dir(test), f"noise_{width}x{height}.png")
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(path)
    return path


class ImportedMultimodalRuns(unittest.TestCase):
    def check(self, width, height, seed):
        image = noise_image(self, width, height, seed)
        bw, bh = budget_size(width, height)
        soft = (bw // PATCH) * (bh // PATCH) // (POOL * POOL)
        ids = [2, 61] + [IMAGE_ID] * soft + [62, 5, 7, 9]
        expected, used = oracle(image, ids)
        self.assertEqual(used, soft)
        out = json_line(self, run_folder(self, STAND_IN, image, ids))["outputs"]["logits"]
        self.assertEqual(out["shape"], list(expected.shape))
        got = np.array(out["data"], np.float32).reshape(expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)

    def test_landscape_image_equals_the_oracle(self):
        self.check(37, 23, 1)

    def test_portrait_image_equals_the_oracle(self):
        self.check(19, 61, 2)

    def test_another_image_changes_the_logits(self):
        # The image reaches the logits: two images of one size give different logits.
        ids = [2] + [IMAGE_ID] * 15 + [5]
        a = json_line(self, run_folder(self, STAND_IN, noise_image(self, 37, 23, 3), ids))["outputs"]["logits"]["data"]
        b = json_line(self, run_folder(self, STAND_IN, noise_image(self, 37, 23, 4), ids))["outputs"]["logits"]["data"]
        self.assertGreater(max(abs(x - y) for x, y in zip(a, b)), 1e-3)

    def test_shared_dummies_are_refused_naming_the_output_and_shape(self):
        # gemma4's vision half (the shared graphs, the speech section dropped): the dummy embedding
        # returns [2, 2, 2048] whatever it is fed.
        folder = os.path.join(temp_dir(self), "gemma4-vision")
        os.makedirs(folder)
        source = os.path.join(FOLDERS, "gemma4")
        for name in os.listdir(source):
            if name != "genai_config.json":
                os.link(os.path.realpath(os.path.join(source, name)), os.path.join(folder, name))
        with open(os.path.join(source, "genai_config.json")) as f:
            config = json.load(f)
        del config["model"]["speech"]
        with open(os.path.join(folder, "genai_config.json"), "w") as f:
            json.dump(config, f)
        r = run_folder(self, folder, noise_image(self, 90, 60, 5), [2, 5, 7], heads=4, head=256)
        self.assertNotEqual(r.returncode, 0)
        for fragment in ("component 'embedding'", "output port 'inputs_embeds'", "[2, 2, 2048]", "'batch_size'"):
            self.assertIn(fragment, r.stderr)

    def test_decoder_with_input_ids_runs_where_its_dummies_fit(self):
        # multimodal-decoder-with-input-ids, read in place: no processor config, so the caller gives
        # pixel_values / image_sizes; its decoder reads request.input_ids beside inputs_embeds. The
        # dummy embedding always returns [1, 1, 64]: a one-token prompt runs (the decoder's logits
        # MatMul gives [1, 1, 10]), a two-token prompt is refused naming the embedding's output.
        folder = os.path.join(SHARED, "ortgenai", "multimodal-decoder-with-input-ids")
        d = temp_dir(self)
        files = {"pv": np.zeros((1, 2, 3, 8, 8), np.float32), "sizes": np.array([[8, 8]], np.int64),
                 "past": np.zeros((1, 4, 0, 16), np.float32)}
        for name, array in files.items():
            np.save(os.path.join(d, name + ".npy"), array)

        def go(ids):
            return run(OGAI, "run", folder, "--json", "--input", f"request.pixel_values=@{d}/pv.npy",
                       "--input", f"request.image_sizes=@{d}/sizes.npy", "--input", f"request.input_ids={json.dumps([ids])}",
                       "--input", f"request.full_key_0=@{d}/past.npy", "--input", f"request.full_value_0=@{d}/past.npy",
                       "--input", "request.active=[true]", "--input", "request.done=[false]",
                       "--input", "request.accepted_len=[0]")

        logits = json_line(self, go([3]))["outputs"]["logits"]
        self.assertEqual(logits["shape"], [1, 1, 10])
        self.assertEqual(logits["dtype"], "float32")
        r = go([3, 4])
        self.assertNotEqual(r.returncode, 0)
        for fragment in ("component 'embedding'", "output port 'inputs_embeds'", "[1, 1, 64]", "'seq' (axis 1) is already 2"):
            self.assertIn(fragment, r.stderr)


if __name__ == "__main__":
    unittest.main()
