"""model.chat / render_chat through the package's template, and response_format."""
import json
import shutil

import jsonschema
import pytest

import ogai
from conftest import TINY_E2B, STORIES, cli, cli_generate

MESSAGES = [{"role": "system", "content": "You tell stories."}, {"role": "user", "content": "Tell me about Lily."}]


def test_render_chat_equals_ogai_template(tiny, tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(MESSAGES), encoding="utf-8")
    expected = cli("template", TINY_E2B, "--messages", str(path), "--add-generation-prompt").stdout
    assert tiny.render_chat(MESSAGES) == expected
    assert tiny.render_chat(MESSAGES, add_generation_prompt=False) == \
        cli("template", TINY_E2B, "--messages", str(path)).stdout


def test_chat_equals_generate_chat(tiny, stories):
    for package, model in ((TINY_E2B, tiny), (STORIES, stories)):
        expected = cli_generate(package, "Tell me about Lily.", "--chat", "--system", "You tell stories.",
                                "--max-new-tokens", "16", "--temperature", "0")
        result = model.chat(MESSAGES, max_new_tokens=16, temperature=0)
        assert result.token_ids == expected["ids"]
        assert result.text == expected["text"]


def test_chat_is_generate_of_the_rendered_prompt(tiny):
    prompt = tiny.render_chat(MESSAGES)
    by_chat = tiny.chat(MESSAGES, max_new_tokens=10, temperature=0)
    by_text = tiny.generate(prompt, max_new_tokens=10, temperature=0, add_special_tokens=False)
    assert by_chat.token_ids == by_text.token_ids
    assert by_chat.prompt_token_ids == tiny.tokenizer.encode(prompt, add_special_tokens=False)


def test_chat_streams(tiny):
    whole = tiny.chat(MESSAGES, max_new_tokens=12, temperature=0).text
    assert "".join(tiny.chat(MESSAGES, max_new_tokens=12, temperature=0, stream=True)) == whole


def test_bad_messages_name_the_element(tiny):
    with pytest.raises(ogai.InvalidArgumentError, match=r"messages\[1\]\.content: expected a string"):
        tiny.render_chat([{"role": "user", "content": "a"}, {"role": "user", "content": 3}])
    with pytest.raises(ogai.InvalidArgumentError, match=r"messages\[0\]: expected a dict, got str"):
        tiny.chat(["hello"])
    with pytest.raises(ogai.InvalidArgumentError, match=r"messages: expected a list"):
        tiny.chat("hello")
    with pytest.raises(TypeError, match="unexpected keyword argument 'tool'"):
        tiny.chat(MESSAGES, tool=[])


SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 12}, "age": {"type": "integer", "minimum": 0, "maximum": 120}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("fixture", ["stories", "tiny"])
def test_json_schema_gives_valid_json(fixture, request):
    model = request.getfixturevalue(fixture)
    fmt = {"type": "json_schema", "json_schema": {"name": "person", "schema": SCHEMA, "strict": True}}
    for seed in (1, 2):
        result = model.generate("Lily is", max_new_tokens=80, temperature=1.0, seed=seed, response_format=fmt)
        assert result.finish_reason in ("eos", "stop"), result
        jsonschema.validate(json.loads(result.text), SCHEMA)
    by_text = model.generate("Lily is", max_new_tokens=80, temperature=1.0, seed=1,
                             response_format={"type": "json_schema", "json_schema": {"schema": json.dumps(SCHEMA)}})
    assert by_text.text == model.generate("Lily is", max_new_tokens=80, temperature=1.0, seed=1,
                                          response_format=fmt).text


def test_other_response_formats(stories):
    obj = stories.generate("Lily is", max_new_tokens=60, temperature=0, response_format={"type": "json_object"})
    if obj.finish_reason != "length":
        assert isinstance(json.loads(obj.text), dict)
    regex = stories.generate("Lily is", max_new_tokens=20, temperature=0,
                             response_format={"type": "regex", "regex": "(yes|no)"})
    assert regex.text in ("yes", "no")
    plain = stories.generate("Lily is", max_new_tokens=8, temperature=0, response_format={"type": "text"})
    assert plain.token_ids == stories.generate("Lily is", max_new_tokens=8, temperature=0).token_ids


def test_response_format_errors(stories):
    with pytest.raises(ogai.InvalidArgumentError, match="response_format.type: 'xml' is not one of"):
        stories.generate("x", response_format={"type": "xml"})
    with pytest.raises(ogai.InvalidArgumentError, match=r"response_format\.json_schema"):
        stories.generate("x", response_format={"type": "json_schema"})
    with pytest.raises(ogai.UnsupportedError):
        stories.generate("x", response_format={"type": "json_schema", "json_schema": {
            "schema": {"type": "array", "items": {"$dynamicRef": "#meta"}}}})  # a keyword ogai refuses
    with pytest.raises(TypeError, match="response_format must be a dict"):
        stories.generate("x", response_format="json")


ADD = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 9},
                                        "op": {"enum": ["plus", "minus"]}},
       "required": ["a", "op"], "additionalProperties": False}
TOOLS = [{"type": "function", "function": {"name": "add", "description": "adds", "parameters": ADD}},
         {"type": "function", "function": {"name": "ping"}}]
# The parameters' keys are not in sorted order ("type" before "properties"): the command line and
# Python must both keep the order given, as transformers does, so their prompts are equal.
assert list(ADD) != sorted(ADD)
ASK = [{"role": "user", "content": "Add three"}]


@pytest.fixture(scope="module")
def tiny_long(tmp_path_factory):
    """tiny-e2b with its declared context raised to 2048 positions: the tool descriptions its
    template's fallback writes into the prompt do not fit in 512 (as tests/e2e/tools_cli_test.py)."""
    dst = tmp_path_factory.mktemp("tiny-long") / "tiny-e2b"
    shutil.copytree(TINY_E2B, dst)
    metadata = dst / "inference_metadata.yaml"
    text = metadata.read_text(encoding="utf-8")
    assert "max_sequence_length: 512" in text
    metadata.write_text(text.replace("max_sequence_length: 512", "max_sequence_length: 2048"), encoding="utf-8")
    return str(dst), ogai.Model(str(dst))


def test_forced_tool_calls_equal_the_cli_and_match_the_schema(tiny_long, tmp_path):
    package, tiny = tiny_long
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(TOOLS), encoding="utf-8")
    for choice, py_choice in (("required", "required"), ("add", {"type": "function", "function": {"name": "add"}})):
        expected = cli_generate(package, "Add three", "--chat", "--tools", str(tools_file), "--tool-choice", choice,
                                "--max-new-tokens", "120", "--temperature", "0")
        r = tiny.chat(ASK, tools=TOOLS, tool_choice=py_choice, max_new_tokens=120, temperature=0)
        assert r.prompt_token_ids == expected["prompt_ids"]
        assert r.token_ids == expected["ids"]
        assert r.finish_reason == "tool_calls"
        assert [c["function"] for c in r.tool_calls] == [c["function"] for c in expected["tool_calls"]]
        for call in r.tool_calls:
            assert call["type"] == "function" and call["id"]
            if choice == "add":
                assert call["function"]["name"] == "add"
            if call["function"]["name"] == "add":
                jsonschema.validate(json.loads(call["function"]["arguments"]), ADD)


def test_tool_results_continue_the_conversation(tiny_long):
    tiny = tiny_long[1]
    first = tiny.chat(ASK, tools=TOOLS, tool_choice="required", max_new_tokens=120, temperature=0)
    call = first.tool_calls[0]
    conversation = ASK + [{"role": "assistant", "content": None, "tool_calls": [call]},
                          {"role": "tool", "tool_call_id": call["id"], "content": "3"}]
    second = tiny.chat(conversation, tools=TOOLS, tool_choice="none", max_new_tokens=8, temperature=0)
    assert second.tool_calls == [] and second.finish_reason in ("length", "eos", "stop")
    assert second.prompt_token_ids != first.prompt_token_ids
    assert str(second) == second.content


def test_streamed_tool_calls_join_to_the_whole_reply(tiny_long):
    """chat(stream=True, tools=...) yields OpenAI-shaped deltas: a call's first delta carries its id
    and name, later ones argument text; joined they equal the whole reply's calls."""
    tiny = tiny_long[1]
    for choice in ("required", {"type": "function", "function": {"name": "add"}}):
        whole = tiny.chat(ASK, tools=TOOLS, tool_choice=choice, max_new_tokens=120, temperature=0)
        stream = tiny.chat(ASK, tools=TOOLS, tool_choice=choice, max_new_tokens=120, temperature=0, stream=True)
        assert isinstance(stream, ogai.ChatStream)
        content, calls = "", {}
        for delta in stream:
            assert delta, "an empty delta was yielded"
            content += delta.get("content", "")
            for d in delta.get("tool_calls", []):
                if d["index"] not in calls:
                    assert d["id"].startswith("call_") and d["type"] == "function" and d["function"]["name"]
                    calls[d["index"]] = {"name": d["function"]["name"], "arguments": ""}
                else:
                    assert "id" not in d and "name" not in d["function"]
                calls[d["index"]]["arguments"] += d["function"]["arguments"]
        assert content == whole.content
        assert [calls[i] for i in sorted(calls)] == [c["function"] for c in whole.tool_calls]
        assert stream.result is not None and stream.result.finish_reason == "tool_calls"
        assert [c["function"] for c in stream.result.tool_calls] == [c["function"] for c in whole.tool_calls]
        assert stream.result.token_ids == whole.token_ids


def test_tool_arguments_errors_name_the_field(tiny):
    with pytest.raises(ogai.InvalidArgumentError, match=r"tools\[0\]\.function\.name: expected a string"):
        tiny.chat(ASK, tools=[{"type": "function", "function": {}}])
    with pytest.raises(ogai.InvalidArgumentError, match=r"tool_choice: 'sometimes' is not one of"):
        tiny.chat(ASK, tools=TOOLS, tool_choice="sometimes")
    with pytest.raises(ogai.InvalidArgumentError, match=r"tool_call_format: 'xml' is not one of"):
        tiny.chat(ASK, tools=TOOLS, tool_call_format="xml")
    with pytest.raises(ogai.InvalidArgumentError, match=r"response_format"):
        tiny.chat(ASK, tools=TOOLS, tool_choice="required", response_format={"type": "json_object"})
    # Fail closed: a parameter keyword the constraint engine cannot enforce is refused by name.
    odd = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "not": {"minProperties": 2}}}}]
    with pytest.raises(ogai.Error, match=r"not"):
        tiny.chat(ASK, tools=odd, tool_choice="required")
