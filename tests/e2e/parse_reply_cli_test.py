"""`ogai parse-reply`: the output shape for built-ins, a package's tokenizer_config.json
response_template, Gemma-4's response_schema, --prefix, --tools typing, malformed templates
(exit 1 naming the key's path) and replies that do not fit (content)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

OGAI = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("OGAI_EXE", "ogai")
SHARED = os.environ.get("OGAI_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../shared"))


def parse(source, reply, *args):
    p = subprocess.run([OGAI, "parse-reply", source, *args], input=reply.encode(), capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


class ParseReplyTest(unittest.TestCase):
    def test_gemma_builtin(self):
        rc, out, _ = parse("builtin:gemma4",
                           '<|channel>thought\nhm<channel|>Ok<|tool_call>call:f{city:<|"|>Pa"ris<|"|>,n:[1,{a:null}]}<tool_call|>')
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out), {
            "role": "assistant", "content": "Ok", "thinking": "hm",
            "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"city": 'Pa"ris', "n": [1, {"a": None}]}}}]})

    def test_schema_from_tokenizer_config(self):
        rc, out, _ = parse(os.path.join(SHARED, "chat_templates", "gemma-4.tokenizer_config.json"),
                           '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>')
        self.assertEqual(rc, 0)
        m = json.loads(out)
        self.assertEqual(m["tool_calls"][0]["function"], {"name": "get_weather", "arguments": {"city": "Paris"}})

    def test_package_template_prefix_and_tools(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
                json.dump({"response_template": {
                    "defaults": {"role": "assistant"}, "start_anchor": "<A>",
                    "fields": {"thinking": {"open": "<t>", "close": "</t>"},
                               "tool_calls": {"open_pattern": r"<call=(?P<name>\w+)>", "close": "</call>", "repeats": True,
                                              "content": "xml-inline",
                                              "content_args": {"tag_pattern": r"<p=(?P<key>\w+)>(?P<value>.*?)</p>"},
                                              "transform": {"type": "function",
                                                            "function": {"name": "{name}", "arguments": "{content}"}}},
                               "content": {}}}}, f)
            tools = os.path.join(d, "tools.json")
            with open(tools, "w") as f:
                json.dump([{"type": "function", "function": {"name": "alarm", "parameters": {
                    "type": "object", "properties": {"hour": {"type": "integer"}, "on": {"type": "boolean"}}}}}], f)
            rc, out, _ = parse(d, "still thinking</t>Set.<call=alarm><p=hour>7</p><p=on>true</p></call>",
                               "--prefix", "<A>old<A><t>", "--tools", tools)
            self.assertEqual(rc, 0)
            self.assertEqual(json.loads(out), {
                "role": "assistant", "content": "Set.", "thinking": "still thinking",
                "tool_calls": [{"type": "function", "function": {"name": "alarm", "arguments": {"hour": 7, "on": True}}}]})

    def test_malformed_template_names_the_key(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            for template, where in [({"fields": {"content": {"clse": "x"}}}, "response_template.fields.content.clse"),
                                    ({"fields": {"x": {"open_pattern": "(a"}}}, "response_template.fields.x.open_pattern"),
                                    ({"fields": {"tool_calls": {"open": "<c>", "content": "json", "transform": {
                                        "function": {"name": "{nme}", "arguments": "{content}"}}}}},
                                     "response_template.fields.tool_calls.transform.function.name")]:
                with open(path, "w") as f:
                    json.dump({"response_template": template}, f)
                rc, _, err = parse(path, "hi")
                self.assertEqual(rc, 1, err)
                self.assertIn(where, err)

    def test_reply_that_does_not_fit_is_content(self):
        for reply in ["<tool_call>not json</tool_call>", "plain", "<tool_call"]:
            rc, out, _ = parse("builtin:hermes", reply)
            self.assertEqual(rc, 0)
            self.assertEqual(json.loads(out), {"role": "assistant", "content": reply})

    def test_unreadable_source(self):
        rc, _, _ = parse("/nonexistent/dir", "x")
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
