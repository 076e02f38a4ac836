"""Runs examples/engine_example on stories260k: several prompts submitted at once from their own
threads; each printed continuation must equal `ogai generate` of that prompt alone, and the
engine must have decoded them together (largest batch > 1).
Usage: engine_example_test.py ENGINE_EXAMPLE_EXE OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import re
import sys
import unittest

from cli_support import STORIES, json_line, run

EXAMPLE = sys.argv.pop(1)
OGAI = sys.argv.pop(1)
PROMPTS = ["Once upon a time", "Lily", "The little dog", "One day"]


class EngineExampleTest(unittest.TestCase):
    def test_each_equals_generate_alone_and_runs_batched(self):
        r = run(EXAMPLE, STORIES, "24", *PROMPTS)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), len(PROMPTS) + 1, r.stdout)
        for i, prompt in enumerate(PROMPTS):
            alone = json_line(self, run(OGAI, "generate", STORIES, "--prompt", prompt, "--max-new-tokens", "24",
                                               "--temperature", "0", "--json"))
            self.assertEqual(lines[i], f"[{i}] {prompt}{alone['text']} ({alone['finish_reason']}, {len(alone['ids'])} tokens)")
        m = re.fullmatch(r"engine: (\d+) decode steps, (\d+) rows, largest batch (\d+)", lines[-1])
        self.assertIsNotNone(m, lines[-1])
        steps, rows, largest = map(int, m.groups())
        self.assertGreater(largest, 1)
        self.assertGreater(rows, steps)

    def test_errors(self):
        self.assertEqual(run(EXAMPLE, STORIES).returncode, 2)
        self.assertEqual(run(EXAMPLE, STORIES, "zero", "x").returncode, 2)
        missing = run(EXAMPLE, "/nonexistent/ogai-package", "5", "x")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("/nonexistent/ogai-package", missing.stderr)


if __name__ == "__main__":
    unittest.main()
