"""The formats users already hold, given where ogai wants a package (generate, validate, import):
an Optimum / onnx-community export is imported (in memory, said once on stderr; `ogai import`
prints its document), a GGUF file or a Hugging Face checkpoint is named with the next step (the
exporters) instead of `no inference_metadata.yaml` or a YAML error on binary bytes.

    /usr/bin/python3 tests/e2e/formats_cli_test.py OGAI FOLDERS
FOLDERS: what tools/fixtures/optimum_export.py wrote (the optimum_export_folders fixture).
"""
import json
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import run, temp_dir  # noqa: E402

OGAI = sys.argv.pop(1) if len(sys.argv) > 2 else None
FOLDERS = sys.argv.pop(1) if len(sys.argv) > 1 else None
EXPORTERS = ("optimum-cli export onnx", "onnxruntime_genai.models.builder")
IMPORTED = "imported the Optimum export (config.json, onnx/model.onnx) in memory"


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


class UnrunnableFormats(unittest.TestCase):
    def assert_next_step(self, path, what, code):
        # Each command a user would try first names the format and the exporters.
        for argv in (["generate", path, "--prompt", "x"], ["validate", path], ["import", path]):
            with self.subTest(argv=argv[0]):
                r = run(OGAI, *argv)
                self.assertIn(r.returncode, code[argv[0]], r.stderr)
                self.assertIn(what, r.stderr)
                for exporter in EXPORTERS:
                    self.assertIn(exporter, r.stderr)
                self.assertNotIn("control character", r.stderr)

    def test_gguf_file(self):
        d = temp_dir(self)
        gguf = write(os.path.join(d, "tiny.bin"), b"GGUF\x03\x00\x00\x00" + bytes(64))  # by magic, any name
        self.assert_next_step(gguf, "a GGUF file (llama.cpp's format)", {"generate": (1,), "validate": (1, 2), "import": (2,)})

    def test_folder_holding_a_gguf_file(self):
        d = temp_dir(self)
        write(os.path.join(d, "model-q4_k_m.gguf"), b"GGUF\x03\x00\x00\x00")
        self.assert_next_step(d, "holds model-q4_k_m.gguf, a GGUF file", {"generate": (1, 2), "validate": (1, 2),
                                                                          "import": (2,)})

    def test_hugging_face_checkpoint(self):
        d = temp_dir(self)
        with open(os.path.join(d, "config.json"), "w", encoding="utf-8") as f:
            json.dump({"model_type": "llama"}, f)
        write(os.path.join(d, "model.safetensors"), bytes(16))
        self.assert_next_step(d, "a Hugging Face checkpoint (config.json and PyTorch / safetensors weights) without "
                                 "ONNX graphs", {"generate": (1, 2), "validate": (1, 2), "import": (2,)})

    def test_weights_file(self):
        d = temp_dir(self)
        weights = write(os.path.join(d, "model.safetensors"), bytes(16))
        self.assert_next_step(weights, "PyTorch / safetensors weights", {"generate": (1,), "validate": (1, 2),
                                                                          "import": (2,)})


class OptimumFolders(unittest.TestCase):
    def test_import_prints_a_valid_document(self):
        r = run(OGAI, "import", os.path.join(FOLDERS, "optimum-llama"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("# Imported from config.json"), r.stdout[:200])
        self.assertIn("model type 'llama'", r.stdout)
        self.assertIn("num_kv_heads: 2", r.stdout)

    def test_import_out_then_validate(self):
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-qwen2"), os.path.join(temp_dir(self), "q"))
        out = os.path.join(folder, "inference_metadata.yaml")
        r = run(OGAI, "import", folder, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        v = run(OGAI, "validate", folder)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertNotIn("imported", v.stderr)  # its own metadata now

    def test_generate_says_once_that_it_imported(self):
        r = run(OGAI, "generate", os.path.join(FOLDERS, "optimum-llama"), "-p", "Once", "-n", "3", "--temperature",
                "0", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count(IMPORTED), 1, r.stderr)
        self.assertEqual(len(json.loads(r.stdout)["ids"]), 3)

    def test_config_contradicting_the_graph_is_refused_by_name(self):
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama"), os.path.join(temp_dir(self), "bad"))
        path = os.path.join(folder, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        config["num_key_value_heads"] = 1
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        r = run(OGAI, "import", folder)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("config.json", r.stderr)
        self.assertIn("past_key_values.0.key", r.stderr)

    def test_merged_decoder_is_refused_with_the_export_that_runs(self):
        r = run(OGAI, "import", os.path.join(FOLDERS, "optimum-llama-merged"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("decoder_model_merged.onnx", r.stderr)
        self.assertIn("use_cache_branch", r.stderr)

    def test_multimodal_config_is_refused(self):
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama"), os.path.join(temp_dir(self), "mm"))
        path = os.path.join(folder, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        config["vision_config"] = {"hidden_size": 8}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        r = run(OGAI, "import", folder)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("vision_config", r.stderr)


if __name__ == "__main__":
    if OGAI is None or FOLDERS is None:
        sys.exit(__doc__)
    unittest.main()
