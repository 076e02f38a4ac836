"""End-to-end checks of `ogai generate --chat --tools FILE --tool-choice ...` and `--var`.

tiny-e2b is copied with the shared Qwen2.5 template (hermes <tool_call> format) or SmolLM3's
(enable_thinking), its declared context raised to 2048 positions (the preambles do not fit in
512). Forced calls (required / a named function) are parsed into `tool_calls` whose arguments
python3-jsonschema validates; plain output prints each call as one JSON line and agrees with
--json and with --stream; bad flags exit 1 or 2 naming the field.
Usage: tools_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

import jsonschema

from cli_support import SHARED, TINY_E2B, copy_package, run, temp_dir

OGAI = sys.argv.pop(1)
ADD = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 9},
                                        "op": {"enum": ["plus", "minus"]}},
       "required": ["a", "op"], "additionalProperties": False}
TOOLS = [{"type": "function", "function": {"name": "add", "parameters": ADD}},
         {"type": "function", "function": {"name": "ping"}}]


def package_with(template, parent):
    dst = copy_package(TINY_E2B, parent)
    path = os.path.join(SHARED, "chat_templates", template)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if template.endswith(".json"):
        source = json.loads(source)["chat_template"]
    with open(os.path.join(dst, "chat_template.jinja"), "w", encoding="utf-8") as f:
        f.write(source)
    metadata = os.path.join(dst, "inference_metadata.yaml")
    with open(metadata, encoding="utf-8") as f:
        text = f.read().replace("max_sequence_length: 512", "max_sequence_length: 2048")
    with open(metadata, "w", encoding="utf-8") as f:
        f.write(text)
    return dst


class ToolsCliTest(unittest.TestCase):
    def setUp(self):
        d = temp_dir(self)
        self.pkg = package_with("qwen2.5.tokenizer_config.json", d)
        self.tools = os.path.join(d, "tools.json")
        with open(self.tools, "w", encoding="utf-8") as f:
            json.dump(TOOLS, f)

    def generate(self, *flags, tokens=120):
        return run(OGAI, "generate", self.pkg, "--chat", "--prompt", "Add three", "--tools", self.tools,
                   "--max-new-tokens", str(tokens), "--temperature", "0", *flags)

    def test_forced_calls_are_parsed_and_valid(self):
        for choice in ["required", "add", "ping"]:
            r = self.generate("--tool-choice", choice, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            self.assertEqual(doc["finish_reason"], "eos", doc["text"])
            self.assertGreaterEqual(len(doc["tool_calls"]), 1, doc["text"])
            self.assertEqual(doc["content"], "")
            for call in doc["tool_calls"]:
                self.assertRegex(call["id"], r"^call_[A-Za-z0-9]{24}$")
                if choice != "required":
                    self.assertEqual(call["function"]["name"], choice)
                args = json.loads(call["function"]["arguments"])
                if call["function"]["name"] == "add":
                    jsonschema.validate(args, ADD)
            plain = self.generate("--tool-choice", choice)
            self.assertEqual(plain.returncode, 0, plain.stderr)
            lines = [json.loads(l) for l in plain.stdout.splitlines()]
            self.assertEqual([l["function"] for l in lines], [c["function"] for c in doc["tool_calls"]])
            streamed = self.generate("--tool-choice", choice, "--stream")
            self.assertEqual(streamed.returncode, 0, streamed.stderr)
            self.assertEqual([json.loads(l)["function"] for l in streamed.stdout.splitlines()],
                             [c["function"] for c in doc["tool_calls"]])

    def test_none_and_auto_parse_nothing_forced(self):
        r = self.generate("--tool-choice", "none", "--json", tokens=8)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["tool_calls"], [])
        self.assertEqual(doc["content"], doc["text"])

    def test_bad_flags_name_the_field(self):
        r = self.generate("--tool-choice", "nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn("tool_choice.function.name", r.stderr)
        with open(self.tools, "w", encoding="utf-8") as f:
            json.dump([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
                                                                                    "$dynamicRef": "#m"}}}], f)
        r = self.generate()
        self.assertEqual(r.returncode, 1)
        self.assertIn("tools[0].function.parameters", r.stderr)
        self.assertIn("'$dynamicRef' at '#/$dynamicRef'", r.stderr)
        with open(self.tools, "w", encoding="utf-8") as f:
            json.dump([{"type": "function", "function": {}}], f)
        r = self.generate()
        self.assertEqual(r.returncode, 1)
        self.assertIn("tools[0].function.name", r.stderr)
        r = run(OGAI, "generate", self.pkg, "--prompt", "x", "--tools", self.tools)
        self.assertEqual(r.returncode, 2)
        self.assertIn("need --chat", r.stderr)
        with open(self.tools, "w", encoding="utf-8") as f:
            json.dump(TOOLS, f)
        r = self.generate("--tool-call-format", "xml")
        self.assertEqual(r.returncode, 1)
        self.assertIn("tool_call_format", r.stderr)


class ReasoningCliTest(unittest.TestCase):
    def test_var_reaches_the_template(self):
        pkg = package_with("smollm3.chat_template.jinja", temp_dir(self))

        def prompt_ids(*flags):
            r = run(OGAI, "generate", pkg, "--chat", "--prompt", "Hi", "--max-new-tokens", "1", "--json", *flags)
            self.assertEqual(r.returncode, 0, r.stderr)
            return json.loads(r.stdout)["prompt_ids"]

        on = prompt_ids()
        self.assertEqual(prompt_ids("--var", "enable_thinking=true"), on)
        self.assertNotEqual(prompt_ids("--var", "enable_thinking=false"), on)
        r = run(OGAI, "generate", pkg, "--chat", "--prompt", "Hi", "--max-new-tokens", "40", "--json",
                "--temperature", "0", "--regex", "<think>[a-z]{2,5}</think>\n[a-z]{2,5}")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertRegex(doc["reasoning_content"], r"^[a-z]{2,5}$")
        self.assertRegex(doc["content"], r"^[a-z]{2,5}$")


if __name__ == "__main__":
    unittest.main()
