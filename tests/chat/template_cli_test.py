"""`ogai template` end to end: exact stdout with nothing added, --tools / --var /
--add-generation-prompt, and the exit statuses (1 for template errors with the message on
stderr, 2 for unreadable input). Rendering itself is checked against @huggingface/jinja by
chat_differential_templates."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

OGAI = sys.argv.pop(1)
TEMPLATES = os.path.join(os.environ["OGAI_SHARED_DIR"], "chat_templates")


def ogai(*args):
    return subprocess.run([OGAI, "template", *args], capture_output=True, text=True, timeout=60)


class TemplateCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))
        return path

    def test_prints_the_prompt_and_nothing_else(self):
        m = self.write("m.json", [{"role": "user", "content": "Hi"}])
        r = ogai(os.path.join(TEMPLATES, "phi-3-mini.tokenizer_config.json"), "--messages", m)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "<|user|>\nHi<|end|>\n<|endoftext|>", ""))
        r = ogai(os.path.join(TEMPLATES, "phi-3-mini.tokenizer_config.json"), "--messages", m, "--add-generation-prompt")
        self.assertEqual(r.stdout, "<|user|>\nHi<|end|>\n<|assistant|>\n")

    def test_continue_final_message_cuts_after_the_last_content(self):
        m = self.write("m.json", [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Once upon"}])
        config = os.path.join(TEMPLATES, "phi-3-mini.tokenizer_config.json")
        r = ogai(config, "--messages", m, "--continue-final-message")
        self.assertEqual((r.returncode, r.stdout), (0, "<|user|>\nHi<|end|>\n<|assistant|>\nOnce upon"), r.stderr)
        r = ogai(config, "--messages", m, "--continue-final-message", "--add-generation-prompt")
        self.assertEqual(r.returncode, 2)
        self.assertIn("exclude each other", r.stderr)

    def test_tools_and_variables_reach_the_template(self):
        t = self.write("t.jinja", "{{ tools|length }}|{{ flag }}|{{ name }}|{{ messages[0].content }}")
        m = self.write("m.json", [{"role": "user", "content": "é"}])
        tools = self.write("tools.json", [{"type": "function", "function": {"name": "f"}}])
        r = ogai(t, "--messages", m, "--tools", tools, "--var", "flag=false", "--var", 'name="x y"')
        self.assertEqual((r.returncode, r.stdout), (0, "1|false|x y|é"), r.stderr)

    def test_template_errors_exit_1_with_the_message(self):
        m = self.write("m.json", [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
        r = ogai(os.path.join(TEMPLATES, "gemma.tokenizer_config.json"), "--messages", m)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("Conversation roles must alternate user/assistant/user/assistant/...", r.stderr)
        bad = self.write("bad.jinja", "line\n{% for x in %}")
        r = ogai(bad, "--messages", m)
        self.assertEqual(r.returncode, 1)
        self.assertIn(bad + ":2:13: template syntax error: expected an expression, got '%}'", r.stderr)

    def test_unreadable_input_exits_2(self):
        m = self.write("m.json", [])
        t = os.path.join(TEMPLATES, "qwen2.5-synthetic.chat_template.jinja")
        self.assertEqual(ogai(os.path.join(self.dir.name, "absent.jinja"), "--messages", m).returncode, 2)
        self.assertEqual(ogai(t, "--messages", self.write("bad.json", "[oops")).returncode, 2)
        self.assertEqual(ogai(t, "--messages", self.write("obj.json", {"role": "user"})).returncode, 2)
        r = ogai(t, "--messages", m, "--var", "flag=notjson")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--var 'flag=notjson'", r.stderr)
        self.assertEqual(ogai(t).returncode, 2)

    def test_deeply_nested_json_is_refused_while_parsing(self):
        # Issue 12 finding 9: 150,000 levels then a sibling key overflowed the stack (SIGSEGV).
        deep = '[{"x": ' + "[" * 150000 + "]" * 150000 + ', "role": "user", "content": "a"}]'
        t = os.path.join(TEMPLATES, "qwen2.5-synthetic.chat_template.jinja")
        for flag in ("--messages", "--tools"):
            args = ["--messages", self.write("m.json", [])] if flag == "--tools" else []
            r = ogai(t, *args, flag, self.write("deep.json", deep))
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(flag + " " + os.path.join(self.dir.name, "deep.json") + ": JSON nested more than 256 levels deep",
                          r.stderr)


if __name__ == "__main__":
    unittest.main()
