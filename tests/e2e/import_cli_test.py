"""End-to-end checks of `ogai import` and of the commands on an ONNX Runtime GenAI folder.

The folder is stories260k as a model-builder export: tests/data/genai/stories260k/genai_config.json
beside ../shared's model.onnx and tokenizer.json (and the tokenizer/generation configs), with no
inference_metadata.yaml. Goldens: the stories260k README's greedy continuation.
Usage: import_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
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

from cli_support import SHARED, SOURCE, STORIES_PROMPT, run, stories_golden, temp_dir

OGAI = sys.argv.pop(1)
GOLDEN_IDS, GOLDEN_TEXT = stories_golden()
IMPORTED = "imported genai_config.json in memory"


def ogai(*args, **kw):
    return run(OGAI, *args, **kw)


def genai_folder(test, edit=None):
    """A fresh stories260k GenAI folder; `edit(config)` may change the genai_config.json first."""
    folder = os.path.join(temp_dir(test), "stories-genai")
    os.makedirs(folder)
    for src in (os.path.join(SHARED, "models", "stories260k", "model.onnx"),
                os.path.join(SHARED, "models", "stories260k", "tokenizer.json"),
                os.path.join(SOURCE, "tests", "data", "stories260k", "tokenizer_config.json"),
                os.path.join(SOURCE, "tests", "data", "stories260k", "generation_config.json")):
        shutil.copyfile(src, os.path.join(folder, os.path.basename(src)))
    with open(os.path.join(SOURCE, "tests", "data", "genai", "stories260k", "genai_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if edit:
        edit(config)
    with open(os.path.join(folder, "genai_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=4)
    return folder


class ImportCommandTest(unittest.TestCase):
    def test_prints_a_document_that_validates_unchanged(self):
        folder = genai_folder(self)
        r = ogai("import", folder)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("# Imported from genai_config.json by `ogai import`"), r.stdout[:200])
        self.assertIn("schema_version: v1", r.stdout)
        with open(os.path.join(folder, "inference_metadata.yaml"), "w", encoding="utf-8") as f:
            f.write(r.stdout)
        v = ogai("validate", folder)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertEqual(v.stdout, f"valid: {folder}\n")
        self.assertNotIn(IMPORTED, v.stderr)  # the folder has metadata now: the config is not read

    def test_out_writes_the_same_document(self):
        folder = genai_folder(self)
        out = os.path.join(temp_dir(self), "meta.yaml")
        r = ogai("import", folder, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn(f"wrote {out} (valid)", r.stderr)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), ogai("import", folder).stdout)

    def test_refusal_names_the_field_and_exits_1(self):
        folder = genai_folder(self, lambda c: c["search"].update(num_beams=4))
        r = ogai("import", folder)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertIn("genai_config.json: search.num_beams: 4: beam search is not implemented by ogai", r.stderr)

    def test_graph_mismatch_names_both_sides(self):
        folder = genai_folder(self, lambda c: c["model"]["decoder"].update(num_key_value_heads=8))
        r = ogai("import", folder)
        self.assertEqual(r.returncode, 1)
        self.assertIn("model.decoder.num_key_value_heads is 8 but graph input 'past_key_values.0.key'", r.stderr)
        self.assertIn("has kv_heads 4", r.stderr)

    def test_unreadable_input_exits_2(self):
        self.assertEqual(ogai("import", os.path.join(temp_dir(self), "nothing")).returncode, 2)
        folder = genai_folder(self)
        with open(os.path.join(folder, "genai_config.json"), "w", encoding="utf-8") as f:
            f.write('{"model": ')
        r = ogai("import", folder)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not valid JSON", r.stderr)


class FolderCommandsTest(unittest.TestCase):
    def test_validate_imports_in_memory_and_says_so_once(self):
        folder = genai_folder(self)
        r = ogai("validate", folder)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, f"valid: {folder}\n")
        self.assertEqual(r.stderr.count(IMPORTED), 1, r.stderr)
        quiet = ogai("-q", "validate", folder)
        self.assertEqual(quiet.returncode, 0)
        self.assertNotIn(IMPORTED, quiet.stderr)

    def test_validate_reports_a_refusal_as_invalid(self):
        folder = genai_folder(self, lambda c: c["model"].update(vision={}))
        r = ogai("validate", folder)
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stdout.startswith("IMPORT "), r.stdout)
        self.assertIn("model.vision: vision components", r.stdout)
        j = ogai("validate", folder, "--json")
        doc = json.loads(j.stdout)
        self.assertFalse(doc["valid"])
        self.assertEqual(doc["errors"][0]["rule"], "IMPORT")

    def test_generate_equals_the_golden(self):
        folder = genai_folder(self)
        r = ogai("generate", folder, "--prompt", STORIES_PROMPT, "--max-new-tokens", "60", "--temperature", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT)
        self.assertEqual(r.stderr.count(IMPORTED), 1, r.stderr)
        doc = json.loads(ogai("-q", "generate", folder, "--prompt", STORIES_PROMPT, "--max-new-tokens", "60",
                              "--temperature", "0", "--json").stdout)
        self.assertEqual(doc["ids"], GOLDEN_IDS)

    def test_generate_refuses_a_refused_folder(self):
        folder = genai_folder(self, lambda c: c["model"]["decoder"].update(pipeline=[]))
        r = ogai("generate", folder, "--prompt", STORIES_PROMPT)
        self.assertEqual(r.returncode, 1)
        self.assertIn("model.decoder.pipeline", r.stderr)

    def test_chat_and_bench_run_on_the_folder(self):
        folder = genai_folder(self)
        chat = ogai("-q", "chat", folder, "--max-new-tokens", "8", stdin="Lily\n")
        self.assertEqual(chat.returncode, 0, chat.stderr)
        self.assertTrue(chat.stdout.strip(), chat.stdout)
        bench = ogai("-q", "bench", folder, "--prompt-len", "8", "--gen", "8", "--runs", "1", "--json")
        self.assertEqual(bench.returncode, 0, bench.stderr)
        self.assertIn("decode", bench.stdout)

    def test_serve_answers_from_the_folder(self):
        folder = genai_folder(self)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([OGAI, "serve", folder, "--port", str(port), "--model-name", "stories"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.addCleanup(server.kill)
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                with urllib.request.urlopen(base + "/health", timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        body = json.dumps({"model": "stories", "prompt": STORIES_PROMPT, "max_tokens": 60, "temperature": 0}).encode()
        req = urllib.request.Request(base + "/v1/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            answer = json.load(resp)
        self.assertEqual(answer["choices"][0]["text"], GOLDEN_TEXT)
        server.terminate()
        _, err = server.communicate(timeout=10)
        self.assertEqual(err.count(IMPORTED), 1, err)


if __name__ == "__main__":
    unittest.main()
