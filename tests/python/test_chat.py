"""model.chat / render_chat through the package's template, and response_format."""
import json

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
    with pytest.raises(TypeError, match="unexpected keyword argument 'tools'"):
        tiny.chat(MESSAGES, tools=[])


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
            "schema": {"type": "string", "format": "no-such-format-ogai-knows"}}})
    with pytest.raises(TypeError, match="response_format must be a dict"):
        stories.generate("x", response_format="json")
