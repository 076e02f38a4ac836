"""The command line's operator controls (issue 26 items 6 and 7).

--ctx-size caps the context below the package's (and cannot raise it); --device needs an
accelerator provider; a tokenizer.json, a chat template or a bare ONNX graph passed where a
package is expected is named as what it is; `ogai chat` drops its oldest turns when the
conversation outgrows the context (or, with --context-overflow stop, says how to go on); --help
shows defaults and enum values by name.
Usage: operator_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

from cli_support import STORIES, TINY_E2B, json_line, run, temp_dir

OGAI = sys.argv.pop(1)
LONG = "Once upon a time there was a little girl named Lily who liked to play in the park. "


class ContextCapTest(unittest.TestCase):
    def test_generation_stops_at_the_capped_context(self):
        out = json_line(self, run(OGAI, "generate", STORIES, "--prompt", "Once upon a time", "--ctx-size", "24",
                                  "--max-new-tokens", "200", "--temperature", "0", "--json"))
        self.assertEqual(out["finish_reason"], "length")
        self.assertEqual(len(out["prompt_ids"]) + len(out["ids"]), 24)

    def test_a_prompt_past_the_cap_is_refused_naming_the_context(self):
        r = run(OGAI, "generate", STORIES, "--prompt", LONG * 4, "--ctx-size", "32", "--max-new-tokens", "4")
        self.assertEqual(r.returncode, 1)
        self.assertIn("32", r.stderr)
        self.assertRegex(r.stderr, r"context")

    def test_the_cap_cannot_exceed_the_package(self):
        r = run(OGAI, "generate", STORIES, "--prompt", "Once", "--ctx-size", "100000000", "--max-new-tokens", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("100000000 exceeds the package's context", r.stderr)

    def test_device_needs_an_accelerator_provider(self):
        r = run(OGAI, "generate", STORIES, "--prompt", "Once", "--device", "1", "--max-new-tokens", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--device 1 selects an accelerator: use it with --ep cuda", r.stderr)


class FileKindTest(unittest.TestCase):
    def check(self, path, what):
        for command in (["generate", path, "--prompt", "x"], ["validate", path], ["serve", path, "--port", "0"]):
            r = run(OGAI, *command, timeout=30)
            self.assertNotEqual(r.returncode, 0, command)
            self.assertIn(what, r.stderr, command)
            self.assertIn("pass the package directory", r.stderr)
            self.assertNotIn("unknown key", r.stderr)

    def test_tokenizer_json(self):
        self.check(os.path.join(STORIES, "tokenizer.json"), "this is a tokenizer (tokenizer.json), not a package")

    def test_tokenizer_json_by_content(self):
        path = os.path.join(temp_dir(self), "vocab.json")
        with open(os.path.join(STORIES, "tokenizer.json"), encoding="utf-8") as f, open(path, "w") as g:
            g.write(f.read())
        self.check(path, "this is a tokenizer (tokenizer.json)")

    def test_chat_template(self):
        path = os.path.join(temp_dir(self), "chat.jinja")
        with open(path, "w") as f:
            f.write("{{ messages[0]['content'] }}")
        self.check(path, "this is a chat template, not a package (give it to a package with --chat-template")

    def test_bare_onnx_graph(self):
        self.check(os.path.join(TINY_E2B, "model.onnx"), "this is an ONNX graph, not a package")

    def test_metadata_file_still_loads(self):
        r = run(OGAI, "validate", os.path.join(TINY_E2B, "inference_metadata.yaml"))
        self.assertEqual(r.returncode, 0, r.stderr)


class ChatOverflowTest(unittest.TestCase):
    MESSAGES = [LONG, LONG + "Tom came too.", LONG + "They ran home."]

    def chat(self, *flags):
        return run(OGAI, "chat", STORIES, "--ctx-size", "72", "--max-new-tokens", "8", "--temperature", "0", *flags,
                   stdin="".join(m + "\n" for m in self.MESSAGES))

    def test_oldest_turns_are_dropped_with_a_notice(self):
        r = self.chat()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 3, r.stdout)
        self.assertRegex(r.stderr, r"\(dropped the \d+ oldest messages? to fit the context of 72 tokens\)")
        self.assertNotIn("error", r.stderr)

    def test_stop_policy_names_reset_and_the_flag(self):
        r = self.chat("--context-overflow", "stop")
        self.assertEqual(r.returncode, 1)
        self.assertIn("/reset", r.stderr)
        self.assertIn("--context-overflow drop", r.stderr)

    def test_unknown_policy_is_a_usage_error(self):
        r = run(OGAI, "chat", STORIES, "--context-overflow", "wrap", stdin="")
        self.assertEqual(r.returncode, 2)


class HelpTest(unittest.TestCase):
    def test_serve_help_shows_defaults_and_enum_names(self):
        r = run(OGAI, "serve", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        text = r.stdout
        self.assertIn("ngram|assistant", text)
        self.assertNotIn("->", text)
        self.assertNotIn("{false}", text)
        self.assertRegex(text, r"--host TEXT=127\.0\.0\.1 ")
        self.assertRegex(text, r"--max-concurrent INT:[^\n]*=16\n")
        self.assertRegex(text, r"--ctx-size [^\n]*=0\n")

    def test_chat_help_lists_only_its_own_flags(self):
        text = run(OGAI, "chat", "--help").stdout
        for flag in ("--system", "--context-overflow", "--temperature", "--ctx-size"):
            self.assertIn(flag, text)
        for flag in ("--json", "--port", "--stream", "--prompt"):
            self.assertNotIn(flag + " ", text)


if __name__ == "__main__":
    unittest.main()
