"""ogai.Engine: concurrent requests equal model.generate; cancel; close."""
import threading

import pytest

import ogai
from conftest import PROMPT


def test_requests_equal_generate(stories):
    expected = stories.generate(PROMPT, max_new_tokens=20, temperature=0).token_ids
    seeded = stories.generate(PROMPT, max_new_tokens=20, temperature=0.9, seed=3).token_ids
    with ogai.Engine(stories, max_sequences=4) as engine:
        greedy = [engine.submit(PROMPT, max_new_tokens=20, temperature=0) for _ in range(3)]
        sampled = engine.submit(PROMPT, max_new_tokens=20, temperature=0.9, seed=3)
        assert [r.wait().token_ids for r in greedy] == [expected] * 3
        assert sampled.wait().token_ids == seeded
        assert sampled.done


def test_submit_from_threads(stories):
    expected = stories.generate(PROMPT, max_new_tokens=12, temperature=0).token_ids
    results = []
    with ogai.Engine(stories) as engine:
        def work():
            results.append(engine.submit(PROMPT, max_new_tokens=12, temperature=0).wait().token_ids)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == [expected] * 4


def test_cancel_and_errors(stories):
    engine = ogai.Engine(stories)
    request = engine.submit(PROMPT, max_new_tokens=3000, ignore_eos=True)
    request.cancel()
    result = request.wait()
    assert result.finish_reason == "cancelled"
    with pytest.raises(ogai.InvalidArgumentError, match="already taken"):
        request.wait()
    with pytest.raises(ogai.InvalidArgumentError, match="top_p"):
        engine.submit(PROMPT, top_p=9.0)
    running = engine.submit(PROMPT, max_new_tokens=3000, ignore_eos=True)
    engine.close()
    assert running.wait().finish_reason == "cancelled"
    with pytest.raises(ogai.InvalidArgumentError, match="engine: is closed"):
        engine.submit(PROMPT)
    with pytest.raises(ogai.InvalidArgumentError, match="max_sequences"):
        ogai.Engine(stories, max_sequences=0)
