"""ogai.Context: KV reuse across calls, one generation at a time, one model."""
import pytest

import ogai
from conftest import PROMPT


def test_a_second_turn_reuses_the_prefix(stories):
    context = ogai.Context(stories)
    assert context.tokens == []
    first = stories.generate(PROMPT, max_new_tokens=10, temperature=0, context=context)
    assert first.token_ids == stories.generate(PROMPT, max_new_tokens=10, temperature=0).token_ids
    held = context.tokens
    assert held[: len(first.prompt_token_ids)] == first.prompt_token_ids
    follow_up = PROMPT + first.text + " Then"
    second = stories.generate(follow_up, max_new_tokens=10, temperature=0, context=context)
    assert second.cached_prompt_tokens >= len(first.prompt_token_ids)
    assert second.token_ids == stories.generate(follow_up, max_new_tokens=10, temperature=0).token_ids
    context.reset()
    assert context.tokens == []


def test_streams_and_chat_take_a_context(stories):
    context = ogai.Context(stories)
    whole = stories.generate(PROMPT, max_new_tokens=12, temperature=0).text
    assert "".join(stories.stream(PROMPT, max_new_tokens=12, temperature=0, context=context)) == whole
    assert len(context.tokens) > 0
    messages = [{"role": "user", "content": "Hi"}]
    assert stories.chat(messages, max_new_tokens=5, temperature=0, context=context).token_ids == \
        stories.chat(messages, max_new_tokens=5, temperature=0).token_ids


def test_one_generation_at_a_time(stories):
    context = ogai.Context(stories)
    stream = stories.stream(PROMPT, max_new_tokens=3000, ignore_eos=True, context=context)
    next(stream)
    with pytest.raises(ogai.InvalidArgumentError, match="context: is in use by another generation"):
        stories.generate(PROMPT, max_new_tokens=3, context=context)
    with pytest.raises(ogai.InvalidArgumentError, match="context: is in use"):
        context.reset()
    stream.close()
    assert stories.generate(PROMPT, max_new_tokens=3, temperature=0, context=context).token_ids


def test_context_errors(stories, tiny):
    with pytest.raises(ogai.InvalidArgumentError, match="context: belongs to another model"):
        stories.generate(PROMPT, max_new_tokens=3, context=ogai.Context(tiny))
    with pytest.raises(TypeError, match="context must be an ogai.Context, not list"):
        stories.generate(PROMPT, context=[])
    assert stories.generate(PROMPT, max_new_tokens=3, temperature=0, context=None).token_ids
