"""End-to-end checks of `ogai generate --json --logprobs N`.

The flag needs --json (usage error, exit 2, otherwise) and N in 0..20; it appends the key
"logprobs" after every existing key; without it the object has no such key.
Usage: generate_logprobs_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import math
import sys
import unittest

from cli_support import STORIES, STORIES_PROMPT, TINY_E2B, json_line, run, stories_golden

OGAI = sys.argv.pop(1)
GOLDEN_IDS, GOLDEN_TEXT = stories_golden()


def generate(*flags, package=STORIES):
    # the CLI samples unless told (docs/cli.md#sampling-default): these checks are of greedy runs
    sampled = any(str(f).split("=")[0] in ("--temperature", "--top-k", "--top-p", "--min-p") for f in flags)
    return run(OGAI, "generate", package, "--prompt", STORIES_PROMPT, *flags, *(() if sampled else ("--temperature", "0")))


def generate_json(test, *flags, **kw):
    return json_line(test, generate(*flags, "--json", **kw))


class LogprobsCliTest(unittest.TestCase):
    def test_greedy_entries(self):
        doc = generate_json(self, "--max-new-tokens", "20", "--logprobs", "3")
        self.assertEqual(list(doc), ["prompt_ids", "ids", "text", "finish_reason", "timings", "logprobs"])
        self.assertEqual(doc["ids"], GOLDEN_IDS[:20])
        self.assertEqual(len(doc["logprobs"]), 20)
        for token, entry in zip(doc["ids"], doc["logprobs"]):
            self.assertEqual(list(entry), ["id", "logprob", "top"])
            self.assertEqual(entry["id"], token)
            self.assertLessEqual(entry["logprob"], 0)
            self.assertEqual(len(entry["top"]), 3)
            self.assertEqual(entry["top"][0], {"id": token, "logprob": entry["logprob"]})
            values = [t["logprob"] for t in entry["top"]]
            self.assertEqual(values, sorted(values, reverse=True))
            self.assertLessEqual(sum(math.exp(v) for v in values), 1 + 1e-5)

    def test_zero_alternatives_and_the_maximum(self):
        doc = generate_json(self, "--max-new-tokens", "3", "--logprobs", "0")
        self.assertTrue(all(e["top"] == [] for e in doc["logprobs"]))
        doc = generate_json(self, "--max-new-tokens", "2", "--logprobs", "20")
        self.assertTrue(all(len(e["top"]) == 20 for e in doc["logprobs"]))

    def test_without_the_flag_there_is_no_key(self):
        doc = generate_json(self, "--max-new-tokens", "5")
        self.assertEqual(list(doc), ["prompt_ids", "ids", "text", "finish_reason", "timings"])
        self.assertNotIn('"logprobs"', generate("--max-new-tokens", "5", "--json").stdout)

    def test_speculative_keeps_logprobs_last(self):
        doc = generate_json(self, "--max-new-tokens", "12", "--logprobs", "1", "--speculative", "ngram")
        self.assertEqual(list(doc)[-2:], ["speculative", "logprobs"])
        plain = generate_json(self, "--max-new-tokens", "12", "--logprobs", "1")
        for a, b in zip(doc["logprobs"], plain["logprobs"]):
            self.assertEqual(a["id"], b["id"])
            self.assertAlmostEqual(a["logprob"], b["logprob"], delta=1e-4)

    def test_fixture_package(self):
        doc = generate_json(self, "--max-new-tokens", "6", "--logprobs", "2", "--ignore-eos", package=TINY_E2B)
        self.assertEqual([e["id"] for e in doc["logprobs"]], doc["ids"])

    def test_logprobs_without_json_is_a_usage_error(self):
        r = generate("--max-new-tokens", "3", "--logprobs", "2")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--logprobs needs --json", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_prompt_logprobs_come_last(self):
        doc = generate_json(self, "--max-new-tokens", "2", "--logprobs", "1", "--prompt-logprobs")
        self.assertEqual(list(doc)[-2:], ["logprobs", "prompt_logprobs"])
        self.assertEqual(len(doc["prompt_logprobs"]), len(doc["prompt_ids"]))
        self.assertIsNone(doc["prompt_logprobs"][0])
        self.assertEqual([e["id"] for e in doc["prompt_logprobs"][1:]], doc["prompt_ids"][1:])
        scored = generate_json(self, "--max-new-tokens", "0", "--logprobs", "1", "--prompt-logprobs")
        self.assertEqual(scored["ids"], [])
        self.assertEqual(scored["prompt_logprobs"], doc["prompt_logprobs"])

    def test_prompt_logprobs_without_logprobs_is_a_usage_error(self):
        r = generate("--max-new-tokens", "3", "--json", "--prompt-logprobs")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--prompt-logprobs needs --logprobs", r.stderr)

    def test_out_of_range_is_a_usage_error(self):
        for bad in ("21", "-1", "x"):
            r = generate("--max-new-tokens", "3", "--json", "--logprobs", bad)
            self.assertEqual(r.returncode, 2, bad + ": " + r.stderr)
            self.assertIn("--logprobs", r.stderr)


if __name__ == "__main__":
    unittest.main()
