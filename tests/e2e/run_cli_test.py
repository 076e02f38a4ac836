"""End-to-end checks of `ogai run` (and `ogai generate` on interpreted workflow packages) on the
conformance fixtures decoder, static_cache and speculative (digest section 9), including the exact
`--json` shape, `.npy` inputs, and the errors a bad request gets.
Usage: run_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import os
import sys
import unittest

import numpy as np

from cli_support import SHARED, json_line, run, temp_dir

OGAI = sys.argv.pop(1)
FIXTURES = os.path.join(SHARED, "conformance", "metadata", "fixtures")
DECODER = os.path.join(FIXTURES, "decoder")
STATIC = os.path.join(FIXTURES, "static_cache")
SPECULATIVE = os.path.join(FIXTURES, "speculative")


def ogai(*args):
    return run(OGAI, *args)


def speculative_inputs(test):
    d = temp_dir(test)
    key, value = os.path.join(d, "key.npy"), os.path.join(d, "value.npy")
    np.save(key, np.zeros((1, 2, 0, 8), np.float32))
    np.save(value, np.zeros((1, 4, 0, 4), np.float32))
    return ["--input", f"verifier.past_key_values.0.key=@{key}",
            "--input", f"verifier.past_key_values.0.value=@{value}",
            "--input", "grammar.initial_state=[0]",
            "--input", "grammar.transition_table=" + str([[0] * 32]),
            "--input", "adaptive.current_k=[4]",
            "--input", "adaptive.estimates=" + str([[0.0] * 24]),
            "--input", "telemetry.draft_ms=[1.0]", "--input", "telemetry.target_ms=[1.0]"]


class RunJson(unittest.TestCase):
    def test_decoder_json_is_one_object_of_outputs(self):
        doc = json_line(self, ogai("run", DECODER, "--input", "request.input_ids=[[4,5]]", "--max-new-tokens", "3",
                                   "--seed", "7", "--json"))
        self.assertEqual(list(doc), ["outputs"])
        self.assertEqual(list(doc["outputs"]), ["tokens.row.0"])
        tokens = doc["outputs"]["tokens.row.0"]
        self.assertEqual(sorted(tokens), ["data", "dtype", "shape"])
        self.assertEqual(tokens["dtype"], "int64")
        self.assertEqual(tokens["shape"], [1, 3])
        self.assertEqual(len(tokens["data"]), 3)

    def test_zero_trip_loop_emits_nothing(self):
        doc = json_line(self, ogai("run", DECODER, "--input", "request.input_ids=[[4,5]]", "--max-new-tokens", "0",
                                   "--json"))
        self.assertEqual(doc, {"outputs": {}})

    def test_static_cache_outputs(self):
        doc = json_line(self, ogai("run", STATIC, "--input", "request.input_ids=[[1,2,3],[4,5,6]]",
                                   "--input", "write_indices=[0,3]", "--input", "active=[true,true]",
                                   "--input", "request.max_iterations=[2]", "--max-new-tokens", "2", "--json"))
        out = doc["outputs"]
        self.assertEqual(sorted(out), ["cache_lengths", "key_cache", "logits", "value_cache", "write_indices"])
        self.assertEqual(out["cache_lengths"]["data"], [3, 6])
        self.assertEqual(out["write_indices"]["data"], [2, 5])
        self.assertEqual(out["key_cache"]["shape"], [2, 8, 4])
        self.assertEqual(out["key_cache"]["dtype"], "float32")

    def test_speculative_with_npy_pasts(self):
        doc = json_line(self, ogai("run", SPECULATIVE, "--input", "request.tokens=[[1,2,3,4]]", "--max-new-tokens", "1",
                                   "--seed", "7", *speculative_inputs(self), "--json"))
        self.assertEqual(doc["outputs"]["tokens.row.0"]["data"], [1, 31])

    def test_human_output_lists_each_output(self):
        r = ogai("run", DECODER, "--input", "request.input_ids=[[4,5]]", "--max-new-tokens", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("tokens.row.0 int64[1, 2]: "), r.stdout)


class RunErrors(unittest.TestCase):
    def expect_error(self, args, *needles):
        r = ogai("run", *args)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertNotIn("internal error", r.stderr)
        for needle in needles:
            self.assertIn(needle, r.stderr)

    def test_missing_required_input(self):
        self.expect_error([DECODER, "--max-new-tokens", "2"], "request.input_ids", "not supplied")

    def test_missing_max_new_tokens(self):
        self.expect_error([DECODER, "--input", "request.input_ids=[[4,5]]"], "request.max_iterations", "max_new_tokens")

    def test_wrong_rank(self):
        self.expect_error([DECODER, "--input", "request.input_ids=[4,5]", "--max-new-tokens", "2"],
                          "request.input_ids", "rank")

    def test_wrong_dtype_value(self):
        self.expect_error([DECODER, "--input", "request.input_ids=[[4.5,5]]", "--max-new-tokens", "2"],
                          "request.input_ids", "not an integer")

    def test_npy_of_the_wrong_dtype(self):
        path = os.path.join(temp_dir(self), "ids.npy")
        np.save(path, np.array([[4, 5]], np.int32))
        self.expect_error([DECODER, "--input", f"request.input_ids=@{path}", "--max-new-tokens", "2"],
                          "request.input_ids", "int32")

    def test_unknown_input_name(self):
        self.expect_error([DECODER, "--input", "nope=[1]", "--max-new-tokens", "2"], "nope", "neither")

    def test_malformed_json(self):
        self.expect_error([DECODER, "--input", "request.input_ids=[[4,", "--max-new-tokens", "2"],
                          "request.input_ids", "not JSON")

    def test_batch_symbol_conflict(self):
        self.expect_error([STATIC, "--input", "request.input_ids=[[1,2,3]]", "--input", "write_indices=[0,3]",
                           "--input", "active=[true]", "--max-new-tokens", "1"], "write_indices", "batch")

    def test_scatter_outside_capacity(self):
        self.expect_error([STATIC, "--input", "request.input_ids=[[1,2,3]]", "--input", "write_indices=[8]",
                           "--input", "active=[true]", "--max-new-tokens", "1"],
                          "outside its capacity of 8", "decoder_cache", "setup[1]")


class GenerateOnWorkflow(unittest.TestCase):
    def test_streams_ids_without_a_tokenizer(self):
        streamed = ogai("generate", DECODER, "--prompt", "[4,5]", "--max-new-tokens", "4", "--temperature", "1",
                        "--seed", "3", "--stream")
        self.assertEqual(streamed.returncode, 0, streamed.stderr)
        doc = json_line(self, ogai("generate", DECODER, "--prompt", "[4,5]", "--max-new-tokens", "4", "--temperature",
                                   "1", "--seed", "3", "--json"))
        self.assertEqual(len(doc["ids"]), 4)
        self.assertEqual(streamed.stdout.strip(), " ".join(map(str, doc["ids"])))
        ran = json_line(self, ogai("run", DECODER, "--input", "request.input_ids=[[4,5]]", "--max-new-tokens", "4",
                                   "--temperature", "1", "--seed", "3", "--json"))
        self.assertEqual(ran["outputs"]["tokens.row.0"]["data"], doc["ids"])

    def test_speculative_generate(self):
        doc = json_line(self, ogai("generate", SPECULATIVE, "--prompt", "[1,2,3,4]", "--max-new-tokens", "1",
                                   "--seed", "7", *speculative_inputs(self), "--json"))
        self.assertEqual(doc["ids"], [1, 31])

    def test_static_cache_has_no_tokens_output(self):
        r = ogai("generate", STATIC, "--prompt", "[1,2,3]", "--input", "write_indices=[0]", "--input", "active=[true]")
        self.assertEqual(r.returncode, 1)
        self.assertIn("role 'tokens'", r.stderr)


if __name__ == "__main__":
    unittest.main()
