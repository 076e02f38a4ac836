"""End-to-end checks of `ogai bench PKG [--prompt-len N] [--gen N] [--runs N] [--json]`.

Checks that the documented fields are present and positive, never timing values.
Usage: bench_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import sys
import unittest

from cli_support import STORIES, TINY_MOE, run

OGAI = sys.argv.pop(1)
RATES = ("load_ms", "prefill_tok_s", "decode_tok_s", "ttft_ms", "runtime_us_per_token")


def bench(package, *flags):
    return run(OGAI, "bench", package, *flags)


class BenchTest(unittest.TestCase):
    def test_json_fields(self):
        for package in (STORIES, TINY_MOE):
            r = bench(package, "--prompt-len", "16", "--gen", "12", "--runs", "2", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.splitlines()
            self.assertEqual(len(lines), 1, r.stdout)
            doc = json.loads(lines[0])
            self.assertEqual(list(doc), ["package", "prompt_len", "gen", "runs", *RATES])
            self.assertEqual((doc["package"], doc["prompt_len"], doc["gen"], doc["runs"]), (package, 16, 12, 2))
            for key in RATES:
                self.assertIsInstance(doc[key], (int, float), key)
                self.assertGreater(doc[key], 0, (package, key))

    def test_human_output(self):
        r = bench(STORIES, "--prompt-len", "8", "--gen", "8", "--runs", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        for label in ("prefill", "decode", "ttft", "ogai's own"):
            line = next((l for l in r.stdout.splitlines() if l.startswith(label)), None)
            self.assertIsNotNone(line, (label, r.stdout))
            self.assertGreater(float(line[len(label):].split()[0]), 0, line)
        self.assertIn("prompt 8 tokens, 8 generated, median of 1 runs", r.stdout)

    def test_prompt_over_the_context_fails(self):
        r = bench(STORIES, "--prompt-len", "600", "--gen", "4", "--runs", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("512", r.stderr)

    def test_bad_counts_are_usage_errors(self):
        for flags in (("--runs", "0"), ("--gen", "-3"), ("--prompt-len", "x")):
            with self.subTest(flags=flags):
                r = bench(STORIES, *flags)
                self.assertEqual(r.returncode, 2)
                self.assertIn(flags[0], r.stderr)
                self.assertLess(len(r.stderr.splitlines()[0]), 120, r.stderr)  # a range a person can read
        self.assertIn("not in range 1 to", bench(STORIES, "--runs", "0").stderr)


if __name__ == "__main__":
    unittest.main()
