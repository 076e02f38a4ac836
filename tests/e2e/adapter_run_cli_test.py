"""`ogai run` on the adapter fixture (onnx-genai.parameter-overlay@1 and the document's `adapters`):
every value the reference's conformance test pins, with the selection passed as tensors and by
name (--adapters), the PEFT safetensors adapter, and the errors of hostile adapter files and bad
selections (copies of the fixture in a temporary folder are broken, never the shared files).
Usage: adapter_run_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import shutil
import struct
import sys
import unittest

from cli_support import SHARED, json_line, run, temp_dir

OGAI = sys.argv.pop(1)
ADAPTER = os.path.join(SHARED, "conformance", "metadata", "fixtures", "adapter")
INDEX = {"blue": 0, "green": 1, "peft": 2, "red": 3}


def tensors(rows, active):
    """The selection tensors for `rows` ([[(name, scale)]]), as the reference's test builds them."""
    seg = [[-1, -1] for _ in rows]
    scales = [[0.0, 0.0] for _ in rows]
    for r, row in enumerate(rows):
        for s, (name, scale) in enumerate(row):
            seg[r][s], scales[r][s] = INDEX[name], scale
    return ["--input", f"request.adapter_segments={json.dumps(seg)}",
            "--input", f"request.adapter_counts={json.dumps([len(r) for r in rows])}",
            "--input", f"request.adapter_scales={json.dumps(scales)}",
            "--input", f"request.active={json.dumps(active)}"]


def result(test, package, activations, *extra):
    doc = json_line(test, run(OGAI, "run", package, "--input", f"activations={json.dumps(activations)}", *extra,
                              "--json"))
    out = doc["outputs"]["result"]
    test.assertEqual(out["dtype"], "float32")
    test.assertEqual(out["shape"], [len(activations), 2])
    return out["data"]


def broken_copy(test):
    """A copy of the adapter fixture whose `peft` artifact reads only its PEFT safetensors."""
    root = os.path.join(temp_dir(test), "adapter")
    shutil.copytree(ADAPTER, root)
    meta = os.path.join(root, "inference_metadata.yaml")
    with open(meta, encoding="utf-8") as f:
        text = f.read()
    json_weight = ("      - location: adapters/peft/adapter.json\n"
                   "        loader_capability: onnx-genai.adapters.json@1\n"
                   "        scale_encoding: alpha_over_rank\n"
                   "        format: json\n")
    test.assertIn(json_weight, text)
    with open(meta, "w", encoding="utf-8") as f:
        f.write(text.replace(json_weight, ""))
    return root


RED, BLUE, GREEN = [("red", 1.0)], [("blue", 1.0)], [("green", 1.0)]
MIX = [("red", 0.5), ("blue", 1.0)]


class PinnedValues(unittest.TestCase):
    def test_heterogeneous_rows_as_tensors(self):
        data = result(self, ADAPTER, [[1, 2], [3, 4], [5, 6]], *tensors([RED, BLUE, MIX], [True, False, True]))
        self.assertEqual(data, [2, 4, 3, 4, 25.5, 35])

    def test_heterogeneous_rows_by_name(self):
        data = result(self, ADAPTER, [[1, 2], [3, 4], [5, 6]], "--adapters", "red;blue;red:0.5,blue",
                      "--input", "request.active=[true,false,true]")
        self.assertEqual(data, [2, 4, 3, 4, 25.5, 35])

    def test_compacted_rows_keep_their_adapters(self):
        self.assertEqual(result(self, ADAPTER, [[5, 6], [1, 2]], *tensors([MIX, RED], [True, True])), [25.5, 35, 2, 4])
        self.assertEqual(result(self, ADAPTER, [[5, 6], [1, 2]], "--adapters", "red:0.5,blue;red"), [25.5, 35, 2, 4])

    def test_single_rows(self):
        for spec, rows, want in [("-", [[]], [1, 2]), ("blue", [BLUE], [7, 10]), ("green", [GREEN], [4, 5]),
                                 ("red", [RED], [2, 4])]:
            self.assertEqual(result(self, ADAPTER, [[1, 2]], *tensors(rows, [True])), want, spec)
            self.assertEqual(result(self, ADAPTER, [[1, 2]], "--adapters", spec), want, spec)

    def test_peft_safetensors_equals_its_json(self):
        # peft: A = [1, -1], B = [0.5, 0.25]; x = [1, 2]: x + (x.A) B = [1, 2] - [0.5, 0.25].
        self.assertEqual(result(self, ADAPTER, [[1, 2]], "--adapters", "peft"), [0.5, 1.75])
        self.assertEqual(result(self, broken_copy(self), [[1, 2]], "--adapters", "peft"), [0.5, 1.75])


class Refusals(unittest.TestCase):
    def refused(self, package, *args):
        r = run(OGAI, "run", package, "--input", "activations=[[1,2]]", *args)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        return r.stderr

    def test_no_selection_names_the_way_to_give_one(self):
        err = self.refused(ADAPTER)
        self.assertIn("is required but was not supplied", err)
        self.assertIn("--adapters", err)

    def test_unknown_adapter_name(self):
        err = self.refused(ADAPTER, "--adapters", "purple")
        self.assertIn("unknown adapter 'purple' (declared: blue, green, peft, red)", err)

    def test_undeclared_index_and_bad_padding(self):
        err = self.refused(ADAPTER, "--input", "request.adapter_segments=[[7,-1]]", "--input", "request.adapter_counts=[1]",
                           "--input", "request.adapter_scales=[[1,0]]", "--input", "request.active=[true]")
        self.assertIn("adapter index 7", err)
        err = self.refused(ADAPTER, "--input", "request.adapter_segments=[[3,0]]", "--input", "request.adapter_counts=[1]",
                           "--input", "request.adapter_scales=[[1,0]]", "--input", "request.active=[true]")
        self.assertIn("must be padded with index -1 and scale 0", err)

    def test_too_many_adapters_for_the_cache_and_the_row(self):
        self.assertIn("max_adapters is 2", self.refused(ADAPTER, "--adapters", "red,blue,green"))
        r = run(OGAI, "run", ADAPTER, "--input", "activations=[[1,2],[1,2],[1,2]]", "--adapters", "red;blue;green")
        self.assertEqual(r.returncode, 1)
        self.assertIn("3 distinct adapters but adapters.cache.max_entries is 2", r.stderr)

    def test_names_and_tensors_together(self):
        err = self.refused(ADAPTER, "--adapters", "red", *tensors([RED], [True])[:2])
        self.assertIn("also passes the selection tensor 'request.adapter_segments'", err)

    def test_bad_scale_spec(self):
        self.assertIn("scale 'x' of adapter 'red' is not a number", self.refused(ADAPTER, "--adapters", "red:x"))

    def test_truncated_safetensors(self):
        root = broken_copy(self)
        path = os.path.join(root, "adapters", "peft", "adapter_model.safetensors")
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:100])
        err = self.refused(root, "--adapters", "peft")
        self.assertIn("adapter_model.safetensors", err)
        self.assertIn("runs past the end of the file", err)
        # Other adapters still run: the broken file is read only when selected.
        self.assertEqual(result(self, root, [[1, 2]], "--adapters", "red"), [2, 4])

    def test_header_length_over_the_file(self):
        root = broken_copy(self)
        path = os.path.join(root, "adapters", "peft", "adapter_model.safetensors")
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", 1 << 20) + data[8:])
        err = self.refused(root, "--adapters", "peft")
        self.assertIn("header length 1048576 runs past the end of the file", err)

    def test_shape_mismatch_with_the_target(self):
        root = broken_copy(self)
        with open(os.path.join(root, "adapters", "red", "adapter.json"), "w", encoding="utf-8") as f:
            json.dump({"targets": {"projection": {"a": [1, 0, 0], "b": [1, 2]}}}, f)
        err = self.refused(root, "--adapters", "red")
        self.assertIn("shape mismatch with target 'projection'", err)
        self.assertIn(os.path.join("adapters", "red", "adapter.json"), err)

    def test_portable_fallback_disabled_is_refused_at_load(self):
        root = broken_copy(self)
        meta = os.path.join(root, "inference_metadata.yaml")
        with open(meta, encoding="utf-8") as f:
            text = f.read()
        with open(meta, "w", encoding="utf-8") as f:
            f.write(text.replace("portable_fallback: true", "portable_fallback: false"))
        self.assertIn("adapters.portable_fallback", self.refused(root, "--adapters", "red"))

    def test_adapters_that_no_overlay_applies_are_refused_at_load(self):
        root = broken_copy(self)
        meta = os.path.join(root, "inference_metadata.yaml")
        with open(meta, encoding="utf-8") as f:
            text = f.read()
        comp_start, comp_end = text.index("      overlay:\n"), text.index("    state: {}\n")
        steps_start, steps_end = text.index("    steps:\n"), text.index("adapters:\n")
        steps = ("    steps:\n    - kind: invoke\n      component: decoder\n"
                 "      inputs:\n        activations: activations\n"
                 "      outputs:\n        projection.output: adapted\n"
                 "    - kind: emit\n      value: adapted\n      output: result\n      mode: replace\n")
        text = text[:comp_start] + text[comp_end:steps_start] + steps + text[steps_end:]
        with open(meta, "w", encoding="utf-8") as f:
            f.write(text)
        err = self.refused(root, "--adapters", "red")
        self.assertIn("no onnx-genai.parameter-overlay@1 component applies the declared adapters", err)


if __name__ == "__main__":
    unittest.main()
