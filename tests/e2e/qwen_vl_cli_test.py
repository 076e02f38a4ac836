"""Qwen2.5-VL / Qwen3-VL folders end to end (issue 35; docs/multimodal.md, "Qwen-VL positions"):
the computing qwen2_5_vl stand-in that tools/genai/multimodal.py writes (CTest fixture
`importer_multimodal_folders`) runs through `ogai generate --image` and the served chat route.
Its decoder's logits are a function of the 3-D position_ids only, so the generated ids are
predicted here from positions computed independently: the prompt's expansion
(<|vision_start|> <|image_pad|> x N <|vision_end|>, N = t * h * w / merge^2 from the image's size
after Qwen2-VL's smart resize) checked against the ids ogai reports, the positions from the NumPy
oracle of Hugging Face's get_rope_index (tests/generate/mrope_oracle.py), and the decoder's
arithmetic in NumPy with its weights read by onnx. Plain 1-D positions would give other ids (checked,
so the test can fail). A document whose manifest lacks ogai.mrope keeps the refusal.
Usage: qwen_vl_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest
import urllib.request

import numpy as np
import onnx
from onnx import numpy_helper
from PIL import Image

from cli_support import BINARY, SOURCE, json_line, run, temp_dir

sys.path.insert(0, os.path.join(SOURCE, "tests", "generate"))
from mrope_oracle import rope_index  # noqa: E402

OGAI = sys.argv.pop(1)
FOLDER = os.path.join(BINARY, "importer_folders", "multimodal", "mm-qwen2_5_vl")
PAD, START, END, EOS = 60, 61, 62, 1
PATCH, MERGE, NEW = 14, 2, 6


def weights():
    model = onnx.load(os.path.join(FOLDER, "text.onnx"))
    return {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}


def features(pos, freqs):
    """The stand-in's rotary-like features of positions [n, 3]: per axis sin(p * f) for each f, then cos."""
    angles = pos[:, :, None] * freqs  # [n, 3, F]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=2).reshape(len(pos), -1)


def greedy(positions, delta, count, w):
    """The stand-in decoder's greedy ids for a prompt with `positions` [3, L], then `count` steps
    whose positions are index + delta on every axis (stopping at EOS, as ogai does)."""
    feat = features(positions.T.astype(np.float64), w["freqs"])  # [L, 12]
    values = list(feat @ w["wv"])
    ids = []
    last = feat[-1]
    length = len(feat)
    while len(ids) < count:
        logits = last @ w["wo"] + np.mean(values, axis=0) @ w["wm"]
        ids.append(int(np.argmax(logits)))
        if ids[-1] == EOS:
            break
        last = features(np.full((1, 3), length + delta, dtype=np.float64), w["freqs"])[0]
        values.append(last @ w["wv"])
        length += 1
    return ids


def grid_of(width, height):
    """image_grid_thw of an image whose sides are multiples of 28 within the pixel bounds (kept by smart resize)."""
    return [1, height // PATCH, width // PATCH]


class QwenVl(unittest.TestCase):
    def setUp(self):
        self.tmp = temp_dir(self)
        rng = np.random.default_rng(35)
        self.images = {}
        for name, (w, h) in {"wide": (84, 56), "tall": (56, 112)}.items():
            path = os.path.join(self.tmp, name + ".png")
            Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)
            self.images[name] = (path, grid_of(w, h))
        self.w = weights()

    def generate(self, prompt, *images, folder=FOLDER):
        flags = []
        for name in images:
            if name.startswith("--"):
                flags.append(name)
            else:
                flags += ["--image", self.images[name][0]]
        return run(OGAI, "generate", folder, "--json", "--max-new-tokens", str(NEW), "--temperature", "0",
                   "--prompt", prompt, *flags)

    def expect_oracle(self, result, images):
        grids = [self.images[name][1] for name in images]
        prompt = result["prompt_ids"]
        # The expansion: each image's run is START, N x PAD, END with N from its grid.
        at = 0
        for grid in grids:
            n = grid[0] * grid[1] * grid[2] // (MERGE * MERGE)
            start = prompt.index(START, at)
            self.assertEqual(prompt[start + 1:start + 2 + n], [PAD] * n + [END], prompt)
            at = start + n + 2
        self.assertEqual(prompt.count(PAD), sum(g[0] * g[1] * g[2] // 4 for g in grids))
        positions, delta = rope_index(prompt, START, PAD, grids, MERGE)
        want = greedy(positions, delta, NEW, self.w)
        self.assertEqual(result["ids"], want)
        plain = greedy(np.tile(np.arange(len(prompt)), (3, 1)), 0, NEW, self.w)
        self.assertNotEqual(plain, want, "the stand-in does not tell 3-D positions from plain ones")

    def test_one_image_generates_what_the_positions_predict(self):
        r = json_line(self, self.generate("w10 w11 <|image_pad|> w12 w13", "wide"))
        self.expect_oracle(r, ["wide"])

    def test_two_images_interleaved_with_text(self):
        r = json_line(self, self.generate("w10 <|image_pad|> w20 w21 <|image_pad|> w30", "tall", "wide"))
        self.expect_oracle(r, ["tall", "wide"])

    def test_text_only_prompt_uses_plain_positions(self):
        r = json_line(self, self.generate("w10 w11 w12"))
        n = len(r["prompt_ids"])
        self.assertEqual(r["ids"], greedy(np.tile(np.arange(n), (3, 1)), 0, NEW, self.w))

    def test_served_chat_with_an_image_equals_the_cli(self):
        # The CLI's chat (the folder's template writes Qwen's marked placeholder) against the oracle...
        cli = json_line(self, self.generate("w10 w11", "wide", "--chat"))
        self.expect_oracle(cli, ["wide"])
        # ... and the server's chat completion with the same image as a data: URL equal to it.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([OGAI, "serve", FOLDER, "--port", str(port), "--model-name", "qwen"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(server.kill)
        base = f"http://127.0.0.1:{port}"
        for _ in range(400):
            try:
                with urllib.request.urlopen(base + "/health", timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        with open(self.images["wide"][0], "rb") as f:
            url = "data:image/png;base64," + base64.b64encode(f.read()).decode()
        body = json.dumps({"model": "qwen", "max_tokens": NEW, "temperature": 0, "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}},
                                         {"type": "text", "text": "w10 w11"}]}]}).encode()
        req = urllib.request.Request(base + "/v1/chat/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            answer = json.load(resp)
        self.assertEqual(answer["choices"][0]["message"]["content"], cli["text"])
        self.assertEqual(answer["usage"]["prompt_tokens"], len(cli["prompt_ids"]))
        server.terminate()
        server.communicate(timeout=10)

    def test_without_the_capability_the_positions_are_refused(self):
        folder = os.path.join(self.tmp, "no-mrope")
        shutil.copytree(FOLDER, folder)
        doc = run(OGAI, "import", FOLDER)
        self.assertEqual(doc.returncode, 0, doc.stderr)
        self.assertIn(", ogai.mrope]", doc.stdout)
        self.assertIn("model.vision.spatial_merge_size (ORT GenAI's multi-image slicing and QNN pipeline; ogai runs "
                      "one image per vision invocation; 3-D mRoPE positions use the processor's PatchImage merge_size)",
                      doc.stdout)
        with open(os.path.join(folder, "inference_metadata.yaml"), "w", encoding="utf-8") as f:
            f.write(doc.stdout.replace(", ogai.mrope]", "]"))
        r = self.generate("w10 <|image_pad|>", "wide", folder=folder)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("position_ids port 'position_ids' is int64 of rank 3", r.stderr)
        self.assertIn("need the workflow capability ogai.mrope", r.stderr)


if __name__ == "__main__":
    unittest.main()
