"""End-to-end checks of the ogai CLI's foundation commands (inspect, --version, logging flags)."""
import json
import os
import subprocess
import sys
import unittest

OGAI = sys.argv.pop(1)
SHARED = os.environ["OGAI_SHARED_DIR"]
STORIES = os.path.join(SHARED, "models/stories260k/model.onnx")


def ogai(*args, env=None):
    return subprocess.run([OGAI, *args], capture_output=True, text=True, env=env, timeout=120)


class CliTest(unittest.TestCase):
    def test_version_names_onnxruntime(self):
        r = ogai("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^ogai \d+\.\d+\.\d+ \(ONNX Runtime 1\.\d+\.\d+\)\n$")

    def test_inspect_table_lists_past_key_geometry(self):
        r = ogai("inspect", STORIES)
        self.assertEqual(r.returncode, 0, r.stderr)
        line = [l for l in r.stdout.splitlines() if "past_key_values.0.key" in l][0]
        self.assertIn("[batch_size, 4, past_sequence_length, 8]", line)

    def test_inspect_json(self):
        r = ogai("inspect", STORIES, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        past = [p for p in doc["inputs"] if p["name"] == "past_key_values.0.key"][0]
        self.assertEqual(past, {"name": "past_key_values.0.key", "dtype": "float32",
                                "shape": ["batch_size", 4, "past_sequence_length", 8]})
        self.assertEqual(doc["outputs"][0]["name"], "logits")
        self.assertEqual(doc["outputs"][0]["shape"], ["batch_size", "sequence_length", 512])

    def test_inspect_package_directory_lists_every_graph(self):
        fixture = os.path.join(SHARED, "conformance/metadata/fixtures/decoder")
        r = ogai("inspect", fixture, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertIn("model.onnx.textproto", doc)
        self.assertIn("policies/token_sampler.onnx.textproto", doc)

    def test_inspect_missing_path_is_usage_error(self):
        r = ogai("inspect", "/nonexistent/model.onnx")
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/model.onnx", r.stderr)

    def test_inspect_corrupt_file_fails_clearly(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ogai_cli_corrupt.onnx")
        with open(path, "wb") as f:
            f.write(b"\xff" * 16)
        r = ogai("inspect", path)
        self.assertEqual(r.returncode, 1)
        self.assertIn("ogai_cli_corrupt.onnx", r.stderr)
        self.assertIn("not a valid ONNX protobuf", r.stderr)

    def test_unknown_flag_is_usage_error(self):
        self.assertEqual(ogai("inspect", STORIES, "--bogus").returncode, 2)
        self.assertEqual(ogai("frobnicate").returncode, 2)

    def test_log_levels(self):
        env = dict(os.environ, OGAI_LOG="loud")
        r = ogai("--version", env=env)
        self.assertEqual(r.returncode, 0)
        self.assertIn("ignoring OGAI_LOG", r.stderr)


if __name__ == "__main__":
    unittest.main()
