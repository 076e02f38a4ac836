"""Runs examples/generate_example on the stories260k package and checks what it prints: the
README's golden greedy continuation, streamed, then the finish reason, token counts and timings.
Usage: example_test.py GENERATE_EXAMPLE_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import re
import sys
import unittest

from cli_support import STORIES, STORIES_PROMPT, run, stories_golden

EXAMPLE = sys.argv.pop(1)
GOLDEN_IDS, GOLDEN_TEXT = stories_golden()
NUMBER = r"(\d+(?:\.\d+)?)"


class GenerateExampleTest(unittest.TestCase):
    def test_streams_the_golden_and_reports(self):
        r = run(EXAMPLE, STORIES, STORIES_PROMPT, "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(GOLDEN_TEXT + "\n"), r.stdout)
        summary = r.stdout[len(GOLDEN_TEXT) + 1:].splitlines()
        self.assertEqual(summary[:2], ["finish_reason: length", "tokens: prompt 5, generated 60"])
        m = re.fullmatch(rf"timings: load {NUMBER} ms, prefill {NUMBER} ms, ttft {NUMBER} ms, "
                         rf"decode {NUMBER} ms, {NUMBER} tok/s", summary[2])
        self.assertIsNotNone(m, summary[2])
        self.assertTrue(all(float(v) > 0 for v in m.groups()), summary[2])
        self.assertEqual(len(summary), 3)

    def test_default_prompt_and_length(self):
        r = run(EXAMPLE, STORIES)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nfinish_reason: length\ntokens: prompt 5, generated 40\n", r.stdout)

    def test_errors(self):
        missing = run(EXAMPLE, "/nonexistent/ogai-package")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("/nonexistent/ogai-package", missing.stderr)
        self.assertEqual(run(EXAMPLE).returncode, 2)
        self.assertEqual(run(EXAMPLE, STORIES, "x", "many").returncode, 2)


if __name__ == "__main__":
    unittest.main()
