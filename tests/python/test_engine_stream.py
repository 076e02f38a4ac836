"""ogai.Engine streaming: Engine.stream / submit(stream=True) pieces join to the whole result,
streams interleave, next() waits without the GIL, leaving early cancels that request only."""
import gc
import threading
import time

import pytest

import ogai
from conftest import PROMPT, thread_count


def test_pieces_join_to_the_whole_result(stories, tiny):
    for model in (stories, tiny):
        whole = model.generate(PROMPT, max_new_tokens=30, temperature=0.8, seed=5)
        with ogai.Engine(model) as engine:
            stream = engine.stream(PROMPT, max_new_tokens=30, temperature=0.8, seed=5)
            assert stream.result is None or stream.result.finish_reason  # never half a result
            pieces = list(stream)
            assert all(isinstance(p, str) and p for p in pieces)
            assert "".join(pieces) == whole.text
            assert stream.result.token_ids == whole.token_ids
            assert stream.result.finish_reason == whole.finish_reason
            with pytest.raises(StopIteration):
                next(stream)
            assert "".join(engine.submit(PROMPT, max_new_tokens=30, temperature=0.8, seed=5, stream=True)) == whole.text


def test_streams_read_in_turns_equal_solo_runs(stories):
    solo = [stories.generate(PROMPT, max_new_tokens=25, temperature=1.0, seed=s).text for s in (1, 2, 3)]
    with ogai.Engine(stories, max_sequences=4) as engine:
        streams = [engine.stream(PROMPT, max_new_tokens=25, temperature=1.0, seed=s) for s in (1, 2, 3)]
        texts = ["", "", ""]
        open_ = set(range(3))
        while open_:
            for i in sorted(open_):
                piece = next(streams[i], None)
                if piece is None:
                    open_.discard(i)
                else:
                    texts[i] += piece
    assert texts == solo


def test_next_waits_without_the_gil(stories):
    # One row: the stream waits behind a long request; only the main thread, which needs the GIL
    # while the reader waits in next(), can cancel that request and let the stream start. Were
    # the GIL held there, the long request would end by itself at the context's end (512
    # positions, "length") first; on a machine so loaded that it does anyway, the round is tried
    # again.
    expected = stories.generate(PROMPT, max_new_tokens=10, temperature=0).text
    outcomes = []
    with ogai.Engine(stories, max_sequences=1) as engine:
        for _ in range(5):
            blocker = engine.submit(PROMPT, max_new_tokens=100000, ignore_eos=True)
            stream = engine.stream(PROMPT, max_new_tokens=10, temperature=0)
            got = []
            started = threading.Event()

            def read():
                started.set()
                got.append("".join(stream))  # enters next() at once, holding the GIL up to there

            reader = threading.Thread(target=read)
            reader.start()
            started.wait()
            time.sleep(0.01)  # the GIL: back here only once the reader let it go (inside next())
            blocker.cancel()
            reader.join(timeout=60)
            assert not reader.is_alive()
            assert got == [expected]
            outcomes.append(blocker.wait().finish_reason)
            if outcomes[-1] == "cancelled":
                break
    assert outcomes[-1] == "cancelled", outcomes


def test_leaving_early_cancels_only_that_request(stories):
    expected = stories.generate(PROMPT, max_new_tokens=40, temperature=0).text
    baseline = thread_count()
    with ogai.Engine(stories, max_sequences=4) as engine:
        other = engine.stream(PROMPT, max_new_tokens=40, temperature=0)
        for _ in range(10):
            for i, _piece in enumerate(engine.stream(PROMPT, max_new_tokens=5000, ignore_eos=True)):
                if i == 2:
                    break
        gc.collect()
        with engine.stream(PROMPT, max_new_tokens=5000, ignore_eos=True) as stream:
            next(stream)
        assert stream.result.finish_reason == "cancelled"
        assert len(stream.result.token_ids) < 5000
        assert list(stream) == []  # a closed stream yields nothing more
        stream.close()  # idempotent
        assert "".join(other) == expected
    assert thread_count() <= baseline


def test_errors(stories):
    engine = ogai.Engine(stories)
    with pytest.raises(ogai.InvalidArgumentError, match="top_p"):
        engine.stream(PROMPT, top_p=9.0)
    running = engine.stream(PROMPT, max_new_tokens=100000, ignore_eos=True)
    next(running)
    engine.close()
    list(running)
    assert running.result.finish_reason == "cancelled"
    with pytest.raises(ogai.InvalidArgumentError, match="engine: is closed"):
        engine.stream(PROMPT)
