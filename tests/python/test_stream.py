"""Streaming: the pieces join to the whole text; leaving early cancels and cleans up."""
import gc
import time

import pytest

from conftest import PROMPT, thread_count


def test_pieces_join_to_the_whole_text(stories, tiny):
    for model in (stories, tiny):
        whole = model.generate(PROMPT, max_new_tokens=30, temperature=0)
        stream = model.stream(PROMPT, max_new_tokens=30, temperature=0)
        pieces = list(stream)
        assert all(isinstance(p, str) and p for p in pieces)
        assert "".join(pieces) == whole.text
        assert stream.result.token_ids == whole.token_ids
        assert stream.result.finish_reason == whole.finish_reason


def test_generate_stream_true_is_a_stream(stories):
    whole = stories.generate(PROMPT, max_new_tokens=15, temperature=0).text
    assert "".join(stories.generate(PROMPT, max_new_tokens=15, temperature=0, stream=True)) == whole


def test_stream_with_a_stop_string_never_shows_it(stories):
    greedy = stories.generate(PROMPT, max_new_tokens=30, temperature=0).text
    stop = greedy[12:16]
    pieces = list(stories.stream(PROMPT, max_new_tokens=30, temperature=0, stop=stop))
    assert "".join(pieces) == greedy[: greedy.index(stop)]


def test_result_is_none_until_the_end(stories):
    stream = stories.stream(PROMPT, max_new_tokens=10, temperature=0)
    assert stream.result is None or stream.result.finish_reason  # may already be done, never half
    next(stream)
    for _ in stream:
        pass
    assert stream.result is not None
    with pytest.raises(StopIteration):
        next(stream)


def test_breaking_out_early_cancels_without_a_leak(stories):
    baseline = thread_count()
    for _ in range(20):
        for i, _piece in enumerate(stories.stream(PROMPT, max_new_tokens=2000, ignore_eos=True, temperature=0)):
            if i == 2:
                break
    gc.collect()
    assert thread_count() <= baseline


def test_close_cancels_the_generation(stories):
    stream = stories.stream(PROMPT, max_new_tokens=5000, ignore_eos=True, temperature=0)
    next(stream)
    started = time.monotonic()
    stream.close()
    assert time.monotonic() - started < 5
    assert list(stream) == []  # a closed stream yields nothing more
    assert stream.result.finish_reason == "cancelled"
    assert len(stream.result.token_ids) < 5000
    stream.close()  # idempotent


def test_context_manager_closes(stories):
    with stories.stream(PROMPT, max_new_tokens=5000, ignore_eos=True) as stream:
        next(stream)
    assert stream.result.finish_reason == "cancelled"


def test_an_error_surfaces_from_the_iterator(stories):
    stream = stories.stream(PROMPT, top_p=3.0)
    with pytest.raises(ValueError, match="top_p"):
        next(stream)
    with pytest.raises(StopIteration):
        next(stream)
