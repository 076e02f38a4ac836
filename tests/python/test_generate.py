"""model.generate: greedy equals the command line, the result object, stop strings, seeds."""
import pytest

import ogai
from conftest import PROMPT, STORIES, TINY_E2B, cli, cli_generate


@pytest.mark.parametrize("package,fixture", [(STORIES, "stories"), (TINY_E2B, "tiny")])
def test_greedy_equals_the_cli(package, fixture, request):
    model = request.getfixturevalue(fixture)
    expected = cli_generate(package, PROMPT, "--max-new-tokens", "24", "--temperature", "0")
    result = model.generate(PROMPT, max_new_tokens=24, temperature=0)
    assert result.token_ids == expected["ids"]
    assert result.text == expected["text"]
    assert result.finish_reason == expected["finish_reason"]
    assert result.prompt_token_ids == expected["prompt_ids"]


def test_result_object(stories):
    result = stories.generate(PROMPT, max_new_tokens=12, do_sample=False)
    assert str(result) == result.text
    assert len(result.token_ids) == 12
    assert result.finish_reason == "length"
    assert set(result.timings) >= {"prefill_ms", "decode_ms", "ttft_ms", "decode_tok_s", "onnxruntime_ms"}
    assert result.timings["prefill_ms"] >= 0
    assert result.cached_prompt_tokens == 0
    assert "GenerationResult(text=" in repr(result) and "'length'" in repr(result)


def test_prompt_as_token_ids_equals_text(stories):
    ids = stories.tokenizer.encode(PROMPT)
    by_text = stories.generate(PROMPT, max_new_tokens=10, temperature=0)
    by_ids = stories.generate(ids, max_new_tokens=10, temperature=0)
    assert by_ids.token_ids == by_text.token_ids
    assert by_ids.prompt_token_ids == ids


def test_stop_string_ends_before_it(stories):
    greedy = stories.generate(PROMPT, max_new_tokens=30, temperature=0).text
    stop = greedy[10:14]
    result = stories.generate(PROMPT, max_new_tokens=30, temperature=0, stop=stop)
    assert result.finish_reason == "stop"
    assert result.text == greedy[: greedy.index(stop)]
    listed = stories.generate(PROMPT, max_new_tokens=30, temperature=0, stop=["zzzz-never", stop])
    assert listed.text == result.text
    transformers_name = stories.generate(PROMPT, max_new_tokens=30, temperature=0, stop_strings=[stop])
    assert transformers_name.text == result.text
    with pytest.raises(TypeError, match="give stop or stop_strings"):
        stories.generate(PROMPT, stop="a", stop_strings="b")


def test_stop_token_ids(stories):
    greedy = stories.generate(PROMPT, max_new_tokens=20, temperature=0)
    stop_id = greedy.token_ids[5]
    result = stories.generate(PROMPT, max_new_tokens=20, temperature=0, stop_token_ids=[stop_id])
    assert result.finish_reason == "stop"
    assert result.token_ids == greedy.token_ids[: greedy.token_ids.index(stop_id) + 1]


def test_seed_reproducibility(stories):
    kwargs = dict(max_new_tokens=24, temperature=1.0, top_k=40, top_p=0.95, seed=11)
    first = stories.generate(PROMPT, **kwargs)
    assert stories.generate(PROMPT, **kwargs).token_ids == first.token_ids
    others = [stories.generate(PROMPT, **dict(kwargs, seed=s)).token_ids for s in (12, 13, 14)]
    assert any(o != first.token_ids for o in others)


def test_sampling_equals_the_cli_with_the_same_seed(stories):
    expected = cli_generate(STORIES, PROMPT, "--max-new-tokens", "16", "--temperature", "0.8", "--top-k", "20",
                            "--min-p", "0.01", "--repetition-penalty", "1.1", "--seed", "5")
    result = stories.generate(PROMPT, max_new_tokens=16, temperature=0.8, top_k=20, min_p=0.01,
                              repetition_penalty=1.1, seed=5)
    assert result.token_ids == expected["ids"]


def test_none_keeps_the_default(stories):
    a = stories.generate(PROMPT, max_new_tokens=8, temperature=0, top_p=None, stop=None)
    b = stories.generate(PROMPT, max_new_tokens=8, temperature=0)
    assert a.token_ids == b.token_ids


def test_releases_the_gil_while_generating(stories):
    import threading
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        stories.generate(PROMPT, max_new_tokens=200, temperature=0, ignore_eos=True)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 3


def test_version():
    assert ogai.__version__.count(".") == 2
    assert cli("--version").stdout.split()[1] == ogai.__version__


class Interrupted(Exception):
    pass


def test_a_signal_interrupts_a_long_generation(stories):
    """A SIGINT handler's exception (KeyboardInterrupt by default) cancels generate() at once."""
    import os
    import signal
    import threading
    import time
    long_run = dict(max_new_tokens=100_000, ignore_eos=True, temperature=0)  # to the end of the context
    started = time.monotonic()
    whole = stories.generate(PROMPT, **long_run)
    full = time.monotonic() - started

    def handler(signum, frame):
        raise Interrupted()

    previous = signal.signal(signal.SIGINT, handler)  # a stray signal must not end the pytest session
    timer = threading.Timer(full / 10, os.kill, (os.getpid(), signal.SIGINT))
    try:
        started = time.monotonic()
        timer.start()
        with pytest.raises(Interrupted):
            stories.generate(PROMPT, **long_run)
        interrupted_after = time.monotonic() - started
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert interrupted_after < full * 0.6, (interrupted_after, full)
    assert stories.generate(PROMPT, max_new_tokens=20, temperature=0).token_ids == whole.token_ids[:20]  # still usable


def test_logprobs_equal_the_cli(stories):
    expected = cli_generate(STORIES, PROMPT, "--max-new-tokens", "4", "--temperature", "0", "--logprobs", "3",
                            "--prompt-logprobs")
    result = stories.generate(PROMPT, max_new_tokens=4, temperature=0, logprobs=3, prompt_logprobs=True)
    assert _close(result.logprobs, expected["logprobs"])
    assert result.prompt_logprobs[0] is None
    assert _close(result.prompt_logprobs, expected["prompt_logprobs"])
    assert stories.generate(PROMPT, max_new_tokens=2, temperature=0).logprobs == []


def _close(a, b):
    """Equal ids and log-probabilities within float32 printing precision, recursively."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def test_speculative_ngram_greedy_equals_plain(stories):
    plain = stories.generate(PROMPT, max_new_tokens=40, temperature=0)
    spec = stories.generate(PROMPT, max_new_tokens=40, temperature=0, speculative="ngram", draft_tokens=3)
    assert spec.token_ids == plain.token_ids
    assert spec.draft_tokens >= spec.accepted_draft_tokens >= 0
    with pytest.raises(ogai.InvalidArgumentError, match="speculative: 'medusa' is not one of"):
        stories.generate(PROMPT, speculative="medusa")


def test_truncate_prompt_keeps_the_end_as_the_cli_does(stories):
    context = stories.info["context_length"]
    ids = stories.tokenizer.encode(PROMPT + " and Lily" * 400)
    with pytest.raises(ogai.InvalidArgumentError, match="truncate_prompt"):
        stories.generate(ids, max_new_tokens=4, temperature=0)
    result = stories.generate(ids, max_new_tokens=4, temperature=0, truncate_prompt=True)
    assert len(result.token_ids) == 4
    assert len(result.prompt_token_ids) < len(ids)
    assert result.prompt_token_ids == ids[len(ids) - len(result.prompt_token_ids):]
    assert len(result.prompt_token_ids) + 4 <= context
    with pytest.raises(TypeError, match="truncate_prompt must be a bool"):
        stories.generate(ids, max_new_tokens=4, truncate_prompt="yes")


def test_unset_sampling_is_the_cli_default(stories):
    """docs/cli.md#sampling-default: nothing set samples (the package has no do_sample) as the CLI does."""
    a = stories.generate(PROMPT, max_new_tokens=20, seed=1)
    assert a.token_ids != stories.generate(PROMPT, max_new_tokens=20, seed=2).token_ids
    assert a.token_ids == cli_generate(STORIES, PROMPT, "--max-new-tokens", "20", "--seed", "1")["ids"]
    greedy = stories.generate(PROMPT, max_new_tokens=20, temperature=0).token_ids
    assert greedy == cli_generate(STORIES, PROMPT, "--max-new-tokens", "20", "--temperature", "0")["ids"]
    assert greedy != a.token_ids
