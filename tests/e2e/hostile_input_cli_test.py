"""Issue 37 items 5 and 7: no input crashes or hangs a command, and filesystem errors are clear.

    /usr/bin/python3 hostile_input_cli_test.py OGAI   (OGAI_SHARED_DIR, OGAI_BINARY_DIR set)

Each case failed on the binary before the fix: `parse-reply` on 100,000-deep tool-call arguments
(every built-in template) and `import` on 200,000-deep arrays in genai_config.json,
tokenizer_config.json or tokenizer.json died of SIGSEGV (recursion); `parse-reply` with SOURCE a
FIFO, `--tools /dev/zero`, or an endless standard input, and `compare --prompts /dev/zero`, never
returned (or grew without bound); a path component over NAME_MAX gave "internal error". With
OGAI_LONG_TESTS=1 the nesting is 1,000,000 deep.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

from cli_support import SHARED, STORIES, run, temp_dir

OGAI = sys.argv.pop(1)
DEPTH = 1_000_000 if os.environ.get("OGAI_LONG_TESTS") == "1" else 100_000
GPT2 = os.path.join(SHARED, "ortgenai", "tiny-random-gpt2-fp32")


def deep_arrays(n):
    return "[" * n + "]" * n


def deep_objects(n):
    return '{"a":' * n + "1" + "}" * n


# A reply per built-in template whose tool-call JSON holds `deep` where that template reads it.
def replies(deep):
    return {
        "hermes": '<tool_call>{"name": "f", "arguments": ' + deep + '}</tool_call>',
        "qwen3_xml": "<tool_call>\n<function=f>\n<parameter=x>\n" + deep + "\n</parameter>\n</function>\n</tool_call>",
        "llama3_json": '{"name": "f", "parameters": ' + deep + '}',
        "mistral": '[TOOL_CALLS][{"name": "f", "arguments": ' + deep + '}]',
        "harmony": "<|channel|>commentary to=functions.f <|constrain|>json<|message|>" + deep + "<|call|>",
        "deepseek_r1": "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n" + deep + "\n```<｜tool▁call▁end｜>",
        "command_r": '<|START_ACTION|>[{"tool_name": "f", "parameters": ' + deep + '}]<|END_ACTION|>',
        "gemma4": "<|tool_call>call:f{a:" + deep + "}<tool_call|>",
    }


def folder_copy(test, folder):
    """A fresh, writable copy of `folder` in a temporary folder (the graph must lie inside it)."""
    out = os.path.join(temp_dir(test), os.path.basename(folder))
    shutil.copytree(folder, out)
    for name in os.listdir(out):
        os.chmod(os.path.join(out, name), 0o644)
    return out


def replace_file(folder, name, text):
    path = os.path.join(folder, name)
    os.remove(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class DeepNesting(unittest.TestCase):
    def assert_survived(self, p, what):
        self.assertGreaterEqual(p.returncode, 0, f"{what}: killed by signal {-p.returncode}: {p.stderr[-500:]}")
        self.assertNotIn("internal error", p.stderr, what)

    def test_parse_reply_every_builtin(self):
        for shape in (deep_arrays, deep_objects):
            for name, reply in replies(shape(DEPTH)).items():
                p = run(OGAI, "parse-reply", "builtin:" + name, stdin=reply, timeout=60)
                self.assert_survived(p, f"{name} {shape.__name__}")
                self.assertEqual(p.returncode, 0, f"{name}: {p.stderr}")
                json.loads(p.stdout)  # one JSON object, printable because nothing in it is too deep

    def test_parse_reply_still_reads_nesting_within_the_budget(self):
        p = run(OGAI, "parse-reply", "builtin:hermes", stdin=replies(deep_arrays(100))["hermes"])
        self.assertEqual(p.returncode, 0, p.stderr)
        args = json.loads(p.stdout)["tool_calls"][0]["function"]["arguments"]
        for _ in range(99):
            args = args[0]
        self.assertEqual(args, [])

    def test_import_deep_genai_config(self):
        folder = folder_copy(self, GPT2)
        with open(os.path.join(GPT2, "genai_config.json"), encoding="utf-8") as f:
            text = f.read()
        for shape in (deep_arrays, deep_objects):
            replace_file(folder, "genai_config.json", text.replace('"head_size": 8', '"head_size": ' + shape(DEPTH)))
            p = run(OGAI, "import", folder)
            self.assert_survived(p, "genai_config.json " + shape.__name__)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("JSON nested more than 256 levels deep", p.stderr)

    def test_import_deep_side_files(self):
        for name in ("tokenizer_config.json", "tokenizer.json"):
            folder = folder_copy(self, GPT2)
            replace_file(folder, name, '{"x": ' + deep_arrays(DEPTH) + "}")
            p = run(OGAI, "import", folder)
            self.assert_survived(p, name)
            self.assertNotEqual(p.returncode, 0, p.stderr)
            self.assertIn(name, p.stderr)

    def test_template_deep_syntax_and_messages(self):
        d = temp_dir(self)
        messages = os.path.join(d, "m.json")
        with open(messages, "w", encoding="utf-8") as f:
            f.write('[{"role": "user", "content": "hi"}]')
        for i, text in enumerate(("{{ " + "(" * DEPTH + "1" + ")" * DEPTH + " }}", "{{ " + deep_arrays(DEPTH) + " }}",
                                  "{% if x %}" * DEPTH + "{% endif %}" * DEPTH)):
            path = os.path.join(d, f"t{i}.jinja")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            p = run(OGAI, "template", path, "--messages", messages)
            self.assert_survived(p, path)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("nested more than 200 levels deep", p.stderr)
        with open(messages, "w", encoding="utf-8") as f:
            f.write('[{"role": "user", "content": ' + deep_arrays(DEPTH) + "}]")
        p = run(OGAI, "template", path, "--messages", messages)
        self.assert_survived(p, "deep --messages")
        self.assertIn("JSON nested more than 256 levels deep", p.stderr)

    def test_validate_deep_metadata(self):
        for name, text in (("inference_metadata.yaml", "a: " + "[" * DEPTH),
                           ("inference_metadata.json", '{"a": ' + deep_arrays(DEPTH) + "}")):
            d = temp_dir(self)
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
            p = run(OGAI, "validate", d)
            self.assert_survived(p, name)
            self.assertNotEqual(p.returncode, 0, p.stderr)


class NoHang(unittest.TestCase):
    def test_parse_reply_source_fifo(self):
        fifo = os.path.join(temp_dir(self), "reply_template.json")
        os.mkfifo(fifo)
        p = run(OGAI, "parse-reply", fifo, stdin="hi", timeout=20)  # no writer ever opens it
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(fifo + ": is a FIFO (named pipe), expected a regular file", p.stderr)

    def test_parse_reply_tools_device(self):
        p = run(OGAI, "parse-reply", "builtin:hermes", "--tools", "/dev/zero", stdin="hi", timeout=20)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("/dev/zero: is a character device, expected a regular file", p.stderr)

    def test_parse_reply_endless_stdin(self):
        with open("/dev/zero", "rb") as zero:
            p = subprocess.run([OGAI, "parse-reply", "builtin:hermes"], stdin=zero, capture_output=True, text=True,
                               timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("more than the 67108864 bytes", p.stderr)

    def test_compare_prompts_device_and_fifo(self):
        fifo = os.path.join(temp_dir(self), "prompts.txt")
        os.mkfifo(fifo)
        for prompts, kind in (("/dev/zero", "a character device"), (fifo, "a FIFO (named pipe)")):
            p = run(OGAI, "compare", STORIES, STORIES, "--prompts", prompts, timeout=20)
            self.assertNotEqual(p.returncode, 0, p.stderr)
            self.assertIn(f"{prompts}: is {kind}, expected a regular file", p.stderr)

    def test_template_and_tokenize_refuse_devices(self):
        p = run(OGAI, "template", STORIES, "--messages", "/dev/zero", timeout=20)
        self.assertNotEqual(p.returncode, 0, p.stderr)
        self.assertIn("/dev/zero: is a character device", p.stderr)


class ClearMessages(unittest.TestCase):
    def test_import_and_generate_agree_on_a_folder(self):
        # tiny-random-gpt2-fp32 pairs GPT-2's 50,295-id tokenizer with a 1,000-logit graph: ONNX
        # Runtime GenAI (and `generate`) run it; `import` called it "invalid (39 problems); this is
        # an importer bug". Both now run it, with the same warning.
        warning = "tokenizer.json: spans 50295 ids but the graph's logits have 1000; ids 1000.. are never generated"
        imp = run(OGAI, "import", GPT2)
        self.assertEqual(imp.returncode, 0, imp.stderr[-2000:])
        self.assertIn("# Imported from genai_config.json", imp.stdout)
        self.assertIn(warning, imp.stderr)
        self.assertIn("saved as its inference_metadata.yaml this document fails", imp.stderr)
        gen = run(OGAI, "generate", GPT2, "--prompt-ids", "[1, 2, 3]", "--max-new-tokens", "3")
        self.assertEqual(gen.returncode, 0, gen.stderr[-2000:])
        self.assertIn(warning, gen.stderr)
        val = run(OGAI, "validate", GPT2)
        self.assertEqual(val.returncode, 0, val.stderr[-2000:])

    def test_name_too_long(self):
        long_path = os.path.join(temp_dir(self), "x" * 300, "genai_config.json")
        for args in (("import", long_path), ("import", os.path.dirname(long_path)), ("validate", long_path),
                     ("parse-reply", long_path), ("inspect", long_path)):
            p = run(OGAI, *args)
            self.assertNotIn("internal error", p.stderr, args)
            self.assertNotIn("filesystem error", p.stderr, args)
            self.assertIn("File name too long", p.stderr, args)
            self.assertIn("x" * 300, p.stderr, args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))


if __name__ == "__main__":
    unittest.main()
