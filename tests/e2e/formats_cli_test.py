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
import socket
import subprocess
import sys
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import run, temp_dir  # noqa: E402

OGAI = sys.argv.pop(1) if len(sys.argv) > 2 else None
FOLDERS = sys.argv.pop(1) if len(sys.argv) > 1 else None
EXPORTERS = ("optimum-cli export onnx", "onnxruntime_genai.models.builder")
IMPORTED = "imported the Optimum export (config.json, onnx/model.onnx, dtype fp32) in memory"


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

    def test_merged_decoder_declares_its_cache_branch_flag(self):
        r = run(OGAI, "import", os.path.join(FOLDERS, "optimum-llama-merged"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('artifact: "onnx/decoder_model_merged.onnx"', r.stdout)
        self.assertIn("capabilities: [workflow_ssa, typed_emit, serving_service_contract, ogai.use_cache_branch]",
                      r.stdout)
        self.assertIn("source: {kind: application, name: use_cache_branch}", r.stdout)
        self.assertIn("use_cache_branch: request.use_cache_branch", r.stdout)
        self.assertIn("use_cache_branch: {dtype: bool, rank: 1, shape: [1]}", r.stdout)

    def test_merged_decoder_without_the_extension_is_refused(self):
        # The same document without the capability: nothing says what feeds the flag.
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama-merged"), os.path.join(temp_dir(self), "m"))
        r = run(OGAI, "import", folder)
        self.assertEqual(r.returncode, 0, r.stderr)
        document = r.stdout.replace(", ogai.use_cache_branch]", "]")
        self.assertNotEqual(document, r.stdout)
        write(os.path.join(folder, "inference_metadata.yaml"), document.encode())
        g = run(OGAI, "generate", folder, "-p", "Once", "-n", "2", "--temperature", "0")
        self.assertEqual(g.returncode, 1, g.stderr)
        self.assertIn("decoder input 'use_cache_branch' (workflow) has no role the engine can fill", g.stderr)

    def test_merged_decoder_with_a_wrong_flag_type_is_refused(self):
        # A float use_cache_branch is no flag ogai feeds: refused by name at import.
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama-merged"), os.path.join(temp_dir(self), "f"))
        graph = os.path.join(folder, "onnx", "decoder_model_merged.onnx")
        with open(graph, "rb") as f:
            data = f.read()
        # The input's declared type follows its name in the graph proto: bool (9) -> float (1).
        at = data.rfind(b"use_cache_branch")
        self.assertGreater(at, 0)
        marker = data.find(b"\x08\x09", at)
        self.assertGreater(marker, at)
        write(graph, data[:marker] + b"\x08\x01" + data[marker + 2:])
        r = run(OGAI, "import", folder)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("'use_cache_branch' (the merged decoder's cache branch flag) is float32", r.stderr)

    def test_dtype_picks_transformers_js_variant(self):
        folder = os.path.join(FOLDERS, "optimum-llama-dtypes")
        for dtype, graph in (("fp32", "model.onnx"), ("fp16", "model_fp16.onnx"), ("q8", "model_quantized.onnx"),
                             ("q4", "model_q4.onnx")):
            with self.subTest(dtype=dtype):
                r = run(OGAI, "import", folder, "--dtype", dtype)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(f'artifact: "onnx/{graph}"', r.stdout)
        default = run(OGAI, "import", folder)
        self.assertIn('artifact: "onnx/model.onnx"', default.stdout)
        self.assertIn("# not imported (no effect on ogai): onnx/model_q4.onnx is not used", default.stdout)

    def test_serve_imports_merged_and_quantized_folders_and_says_so(self):
        # The server answers from the folder as `generate` does, and says once what it imported.
        for folder, dtype, said in (("optimum-llama-merged", None, "onnx/decoder_model_merged.onnx, dtype fp32"),
                                    ("optimum-llama-dtypes", "q4", "onnx/model_q4.onnx, dtype q4")):
            with self.subTest(folder=folder):
                path = os.path.join(FOLDERS, folder)
                flags = ["--dtype", dtype] if dtype else []
                g = run(OGAI, "generate", path, *flags, "-p", "Once upon a time", "-n", "12", "--temperature", "0",
                        "--json")
                self.assertEqual(g.returncode, 0, g.stderr)
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    port = s.getsockname()[1]
                server = subprocess.Popen([OGAI, "serve", path, *flags, "--port", str(port), "--model-name", "m"],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.addCleanup(server.kill)
                base = f"http://127.0.0.1:{port}"
                for _ in range(200):
                    try:
                        with urllib.request.urlopen(base + "/health", timeout=1):
                            break
                    except OSError:
                        time.sleep(0.05)
                body = json.dumps({"model": "m", "prompt": "Once upon a time", "max_tokens": 12,
                                   "temperature": 0}).encode()
                req = urllib.request.Request(base + "/v1/completions", body, {"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=30) as resp:
                    answer = json.load(resp)
                self.assertEqual(answer["choices"][0]["text"], json.loads(g.stdout)["text"])
                server.terminate()
                _, err = server.communicate(timeout=10)
                self.assertEqual(err.count(f"imported the Optimum export (config.json, {said}) in memory"), 1, err)

    def test_dtype_missing_or_unknown_is_refused(self):
        folder = os.path.join(FOLDERS, "optimum-llama-dtypes")
        r = run(OGAI, "import", folder, "--dtype", "bnb4")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no graph for dtype bnb4", r.stderr)
        self.assertIn("the folder holds: fp32, fp16, q8, int8, uint8, q4", r.stderr)
        r = run(OGAI, "import", folder, "--dtype", "float16")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("'float16' is not one of transformers.js's dtypes (fp32, fp16, q8,", r.stderr)
        g = run(OGAI, "generate", folder, "--dtype", "bnb4", "-p", "x")
        self.assertEqual(g.returncode, 1, g.stderr)
        self.assertIn("no graph for dtype bnb4", g.stderr)

    def test_dtype_on_another_package_is_refused(self):
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama"), os.path.join(temp_dir(self), "own"))
        r = run(OGAI, "import", folder, "--out", os.path.join(folder, "inference_metadata.yaml"))
        self.assertEqual(r.returncode, 0, r.stderr)
        g = run(OGAI, "generate", folder, "--dtype", "q4", "-p", "x")
        self.assertEqual(g.returncode, 1, g.stderr)
        self.assertIn("a dtype (q4) picks the graph of an Optimum / onnx-community folder imported in memory", g.stderr)

    def test_default_dtype_follows_config_then_falls_back(self):
        # transformers.js_config.dtype in config.json is the default, as in transformers.js.
        folder = shutil.copytree(os.path.join(FOLDERS, "optimum-llama-dtypes"), os.path.join(temp_dir(self), "d"))
        path = os.path.join(folder, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        config["transformers.js_config"] = {"dtype": "q4"}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        r = run(OGAI, "generate", folder, "-p", "Once", "-n", "2", "--temperature", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(config.json, onnx/model_q4.onnx, dtype q4) in memory", r.stderr)
        # Without its fp32 graph (and no configured dtype), the first dtype present runs, said in the header.
        del config["transformers.js_config"]
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        os.remove(os.path.join(folder, "onnx", "model.onnx"))
        r = run(OGAI, "import", folder)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('artifact: "onnx/model_fp16.onnx"', r.stdout)
        self.assertIn("dtype fp16 runs: no fp32 graph (transformers.js's default dtype); the first dtype present runs",
                      r.stdout)

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
