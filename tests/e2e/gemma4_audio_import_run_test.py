"""Gemma-4 audio through an imported ONNX Runtime GenAI folder (issue 35, item 1): the computing
gemma4 stand-in with a speech session (tools/genai/multimodal.py mm-gemma4-audio, CTest fixture
`importer_multimodal_folders`; its audio_feature_extraction.json is the shared gemma4 one) goes
through `ogai import` (valid, with a preprocessing.audio program), `ogai validate` and `ogai run`
with a WAV and an image written here, and `ogai generate --audio` (the native engine). The logits and
greedy ids equal an independent computation: the features
the imported program gives (run by audio_features_probe, the program tests/e2e/gemma4_audio_import_hf.cjs
compares with transformers.js) through NumPy versions of the speech, vision, embedding and decoder
graphs (weights read with onnx).
Usage: gemma4_audio_import_run_test.py OGAI_EXE AUDIO_FEATURES_PROBE (OGAI_* directories set).
"""
import json
import os
import subprocess
import sys
import unittest

import numpy as np
import onnx
import yaml
from onnx import numpy_helper
from PIL import Image

from cli_support import BINARY, json_line, run, temp_dir
from wav_file import write_pcm16

OGAI, PROBE = sys.argv.pop(1), sys.argv.pop(1)
STAND_IN = os.path.join(BINARY, "importer_folders", "multimodal", "mm-gemma4-audio")
PATCH, POOL, IMAGE_ID, AUDIO_ID, IMAGE_SIDE = 4, 2, 60, 63, 32  # 32 x 32: the patch budget's own size


def weights(graph):
    model = onnx.load(os.path.join(STAND_IN, graph))
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def write_wav(path, samples, rate):
    write_pcm16(path, np.clip(np.round(samples * 32767), -32768, 32767), rate)


def tone(test, seconds, rate, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    x = 0.4 * np.sin(2 * np.pi * (300 + 200 * seed) * t) + 0.05 * rng.standard_normal(t.size)
    path = os.path.join(temp_dir(test), f"tone_{seed}_{rate}.wav")
    write_wav(path, x, rate)
    return path


def noise_image(test, seed):
    path = os.path.join(temp_dir(test), f"image_{seed}.png")
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 256, (IMAGE_SIDE, IMAGE_SIDE, 3), dtype=np.uint8)).save(path)
    return path


def imported_document():
    r = run(OGAI, "import", STAND_IN)
    if r.returncode != 0:
        raise AssertionError(f"ogai import {STAND_IN} failed ({r.returncode}): {r.stderr}")
    return yaml.safe_load(r.stdout)


def program_features(test, program, wav):
    """The imported program's outputs for `wav`: {name: array}, through audio_features_probe."""
    d = temp_dir(test)
    path = os.path.join(d, "program.json")
    with open(path, "w") as f:
        json.dump(program, f)
    lines = subprocess.run([PROBE, "run", path, wav, os.path.join(d, "out")], capture_output=True, text=True, check=True)
    out = {}
    for line in lines.stdout.splitlines():
        o = json.loads(line)
        raw = np.fromfile(os.path.join(d, "out", f"{o['index']}.bin"), np.int64 if o["integer"] else np.float32)
        out[o["name"]] = raw.reshape(o["shape"])
    return out


def depthwise(x, kernel):
    """Conv1d over [channels, frames], kernel [channels, 1, 3], stride 2, padding 1, one group per channel."""
    padded = np.pad(x, ((0, 0), (1, 1)))
    frames = (x.shape[1] - 1) // 2 + 1
    return np.stack([(padded[:, 2 * t:2 * t + 3] * kernel[:, 0, :]).sum(axis=1) for t in range(frames)], axis=1)


def speech_oracle(f, graph="speech.onnx"):
    s = weights(graph)
    x = f["audio.audio_embeds"][0] @ s["wa"] * f["audio.input_features_mask"][0][:, None]  # [frames, H]
    rows = depthwise(depthwise(x.T, s["k1"]), s["k2"]).T[:int(f["audio.audio_sizes"][0])]
    return rows + float(f["audio.audio_sizes"].sum()) * s["wsize"]


def image_oracle(image_path):
    pixels = np.asarray(Image.open(image_path).convert("RGB"), np.float32) * np.float32(1 / 255)
    n = IMAGE_SIDE // PATCH
    patches = pixels.reshape(n, PATCH, n, PATCH, 3).transpose(0, 2, 1, 3, 4).reshape(n * n, -1)
    coords = np.array([[x, y] for y in range(n) for x in range(n)], np.float32)
    v = weights("vision.onnx")
    per_patch = patches @ v["wp"] + coords @ v["wxy"]
    return per_patch.reshape(-1, POOL * POOL, per_patch.shape[-1]).mean(axis=1)


def logits_oracle(ids, image_features, audio_features):
    e = weights("embedding.onnx")
    embeds = e["table"][np.array(ids)].copy()
    for token, features in ((IMAGE_ID, image_features), (AUDIO_ID, audio_features)):
        rows = [i for i, t in enumerate(ids) if t == token]
        embeds[rows] = features[:len(rows)]
    d = weights("text.onnx")
    x = embeds + np.arange(len(ids), dtype=np.float32)[:, None] * d["wpos"]
    values = (x @ d["wv"]).reshape(len(ids), 2, 8).transpose(1, 0, 2)
    memory = values.mean(axis=1).reshape(-1) @ d["wm"]
    return (x @ d["wo"] + memory)[None]


def run_folder(test, folder, image, audio, ids):
    past = os.path.join(temp_dir(test), "past.npy")
    np.save(past, np.zeros((1, 2, 0, 8), np.float32))
    n = len(ids)
    return run(OGAI, "run", folder, "--json", "--input", f"request.image=@{image}", "--input", f"request.audio=@{audio}",
               "--input", f"request.input_ids={json.dumps([ids])}",
               "--input", f"request.attention_mask={json.dumps([[1] * n])}",
               "--input", f"request.position_ids={json.dumps([list(range(n))])}",
               "--input", f"request.full_key_0=@{past}", "--input", f"request.full_value_0=@{past}",
               "--input", "request.active=[true]", "--input", "request.done=[false]",
               "--input", "request.accepted_len=[0]")


class ImportedGemma4AudioRuns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = imported_document()["preprocessing"]["audio"]

    def test_import_writes_the_audio_program_and_validates(self):
        self.assertEqual([t["op"] for t in self.program["transforms"]][:6],
                         ["decode", "downmix", "resample", "trim", "pad", "log_mel"])
        r = run(OGAI, "validate", STAND_IN, "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = json.loads(r.stdout)
        self.assertTrue(report["valid"], report["errors"])
        self.assertEqual(report["errors"], [])

    def check(self, seconds, rate, seed):
        wav, image = tone(self, seconds, rate, seed), noise_image(self, seed)
        f = program_features(self, self.program, wav)
        tokens = int(f["audio.audio_sizes"][0])
        self.assertGreater(tokens, 0)
        audio = speech_oracle(f)
        self.assertEqual(len(audio), tokens)
        ids = [2, 61] + [IMAGE_ID] * 16 + [62, 5] + [AUDIO_ID] * tokens + [7, 9]
        expected = logits_oracle(ids, image_oracle(image), audio)
        out = json_line(self, run_folder(self, STAND_IN, image, wav, ids))["outputs"]["logits"]
        self.assertEqual(out["shape"], list(expected.shape))
        got = np.array(out["data"], np.float32).reshape(expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)
        return got

    def test_one_second_at_16khz_equals_the_oracle(self):
        self.check(1.0, 16000, 1)

    def test_resampled_clip_with_a_partial_frame_equals_the_oracle(self):
        self.check(0.37, 22050, 2)

    def test_another_clip_changes_the_logits(self):
        image = noise_image(self, 3)
        ids = [2] + [IMAGE_ID] * 16 + [5] + [AUDIO_ID] * 6 + [7]
        a = json_line(self, run_folder(self, STAND_IN, image, tone(self, 0.5, 16000, 4), ids))["outputs"]["logits"]["data"]
        b = json_line(self, run_folder(self, STAND_IN, image, tone(self, 0.5, 16000, 5), ids))["outputs"]["logits"]["data"]
        self.assertGreater(max(abs(x - y) for x, y in zip(a, b)), 1e-3)

    def generate_equals_greedy_on_the_oracle(self, folder, graph, seconds, seed):
        # The native engine (docs/multimodal.md) on the imported folder: <|audio|> becomes the
        # Gemma-4 block of audio_sizes soft tokens, and the greedy ids follow the oracle's logits.
        wav = tone(self, seconds, 16000, seed)
        f = program_features(self, self.program, wav)
        tokens = int(f["audio.audio_sizes"][0])
        audio, no_image = speech_oracle(f, graph), np.zeros((0, 32), np.float32)
        r = json_line(self, run(OGAI, "generate", folder, "--json", "--max-new-tokens", "5",
                                "--prompt", "<bos> w5 <|audio|> w7", "--audio", wav))
        prompt = [2, 5, 58] + [AUDIO_ID] * tokens + [59, 7]
        self.assertEqual(r["prompt_ids"], prompt)
        ids = list(prompt)
        for _ in range(5):
            ids.append(int(np.argmax(logits_oracle(ids, no_image, audio)[0, -1])))
            if ids[-1] == 1:
                break
        self.assertEqual(r["ids"], ids[len(prompt):])
        # The features decide: with them zeroed the oracle's first token differs.
        silent = int(np.argmax(logits_oracle(prompt, no_image, audio * 0)[0, -1]))
        self.assertNotEqual(silent, r["ids"][0])

    def test_generate_with_a_clip_feeds_the_bool_mask_and_equals_greedy_on_the_oracle(self):
        # The stand-in's speech graph takes Gemma-4's input_features_mask as bool: the program's
        # bool output feeds it (src/workflow/audio_tensor.h).
        self.generate_equals_greedy_on_the_oracle(STAND_IN, "speech.onnx", 1.3, 7)

    def test_generate_without_the_mask_input_equals_greedy_on_the_oracle(self):
        # The shared gemma4 dummy's speech inputs (audio_embeds, audio_sizes): the mask is not fed.
        folder = os.path.join(temp_dir(self), "mm-gemma4-audio-nomask")
        os.makedirs(folder)
        for name in os.listdir(STAND_IN):
            if name != "genai_config.json":
                os.link(os.path.realpath(os.path.join(STAND_IN, name)), os.path.join(folder, name))
        with open(os.path.join(STAND_IN, "genai_config.json")) as f:
            config = json.load(f)
        config["model"]["speech"]["filename"] = "speech_nomask.onnx"
        del config["model"]["speech"]["inputs"]["attention_mask"]
        with open(os.path.join(folder, "genai_config.json"), "w") as f:
            json.dump(config, f)
        self.generate_equals_greedy_on_the_oracle(folder, "speech_nomask.onnx", 0.9, 8)

    def test_corrupt_audio_is_refused_naming_the_input(self):
        bad = os.path.join(temp_dir(self), "bad.wav")
        with open(bad, "wb") as f:
            f.write(b"RIFF\x10\x00\x00\x00WAVEjunkjunk")
        r = run_folder(self, STAND_IN, noise_image(self, 6), bad, [2, 5])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("audio", r.stderr)


if __name__ == "__main__":
    unittest.main()
