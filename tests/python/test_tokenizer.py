"""model.tokenizer: encode/decode round trip, equal to `ogai tokenize`."""
import json

from conftest import PROMPT, STORIES, TINY_E2B, cli

TEXTS = ["Once upon a time", "Hello, world! 123", "  spaces  and\nnew lines", ""]


def test_round_trip(stories, tiny):
    for model in (stories, tiny):
        for text in TEXTS:
            ids = model.tokenizer.encode(text, add_special_tokens=False)
            assert all(isinstance(i, int) for i in ids)
            assert model.tokenizer.decode(ids) == text


def test_special_tokens(stories):
    with_bos = stories.tokenizer.encode(PROMPT)
    without = stories.tokenizer.encode(PROMPT, add_special_tokens=False)
    assert with_bos[1:] == without and len(with_bos) == len(without) + 1
    assert stories.tokenizer.decode(with_bos, skip_special_tokens=True) == PROMPT


def test_equals_the_cli(stories, tiny):
    for package, model in ((STORIES, stories), (TINY_E2B, tiny)):
        out = cli("tokenize", package, "--text", PROMPT, "--json").stdout
        assert model.tokenizer.encode(PROMPT) == json.loads(out)


def test_vocab_size(stories):
    assert stories.tokenizer.vocab_size == stories.info["vocab_size"] > 0


def test_decode_refuses_text(stories):
    import pytest
    with pytest.raises(TypeError, match="decode"):
        stories.tokenizer.decode("abc")
