"""Looped workflow packages (the conformance fixtures decoder and speculative, no tokenizer):
Model.generate and Engine take token ids and equal `ogai run` of the same build, greedy and
seeded; several requests at once equal each alone; the stream equals the whole text."""
import json
import os

import numpy as np
import pytest

import ogai
from conftest import METADATA_FIXTURES, cli

DECODER = os.path.join(METADATA_FIXTURES, "decoder")
SPECULATIVE = os.path.join(METADATA_FIXTURES, "speculative")


def ran(package, name, ids, n, *flags):
    """`ogai run --json`: what the workflow emitted into tokens.row.0."""
    doc = json.loads(cli("run", package, "--input", f"{name}={json.dumps([ids])}", "--max-new-tokens", str(n),
                         "--json", *flags).stdout)
    return doc["outputs"]["tokens.row.0"]["data"]


@pytest.fixture(scope="module")
def decoder():
    return ogai.Model(DECODER)


def test_seeded_and_greedy_equal_ogai_run(decoder):
    r = decoder.generate([4, 5], max_new_tokens=5, temperature=1.0, seed=7)
    assert r.token_ids == [111, 1, 80, 49, 3]
    assert r.token_ids == ran(DECODER, "request.input_ids", [4, 5], 5, "--seed", "7", "--temperature", "1")
    assert r.text == "111 1 80 49 3"
    assert r.finish_reason == "length"
    greedy = decoder.generate([6, 0], max_new_tokens=4, temperature=0)
    assert greedy.token_ids == ran(DECODER, "request.input_ids", [6, 0], 4)


def test_engine_concurrent_equals_solo_and_streams(decoder):
    solo = [decoder.generate([4, 5], max_new_tokens=6, temperature=1.0, seed=s).token_ids for s in range(3)]
    with ogai.Engine(decoder, max_sequences=4) as engine:
        requests = [engine.submit([4, 5], max_new_tokens=6, temperature=1.0, seed=s) for s in range(3)]
        stream = engine.stream([4, 5], max_new_tokens=6, temperature=1.0, seed=0)
        pieces = list(stream)
        assert [r.wait().token_ids for r in requests] == solo
    assert "".join(pieces) == " ".join(map(str, solo[0]))


def test_eos_of_the_workflows_own_table_finishes_with_stop_in_the_last_trip():
    model = ogai.Model(DECODER, inputs=["eos_ids=[[80]]"])
    last = model.generate([4, 5], max_new_tokens=3, temperature=1.0, seed=7)
    assert (last.token_ids, last.finish_reason) == ([111, 1, 80], "stop")
    short = model.generate([4, 5], max_new_tokens=2, temperature=1.0, seed=7)
    assert (short.token_ids, short.finish_reason) == ([111, 1], "length")


def test_text_prompt_and_logprobs_are_refused(decoder):
    with pytest.raises(ogai.Error, match="no tokenizer"):
        decoder.generate("hello", max_new_tokens=2)
    with pytest.raises(ogai.Error, match="exposes no logits"):
        decoder.generate([4, 5], max_new_tokens=2, logprobs=1)


def test_speculative_with_load_inputs(tmp_path):
    key, value = tmp_path / "key.npy", tmp_path / "value.npy"
    np.save(key, np.zeros((1, 2, 0, 8), np.float32))
    np.save(value, np.zeros((1, 4, 0, 4), np.float32))
    inputs = [f"verifier.past_key_values.0.key=@{key}", f"verifier.past_key_values.0.value=@{value}",
              "grammar.initial_state=[0]", "grammar.transition_table=" + json.dumps([[0] * 32]),
              "adaptive.current_k=[4]", "adaptive.estimates=" + json.dumps([[0.0] * 24]),
              "telemetry.draft_ms=[1.0]", "telemetry.target_ms=[1.0]"]
    model = ogai.Model(SPECULATIVE, inputs=inputs)
    assert model.generate([1, 2, 3, 4], max_new_tokens=1, seed=7).token_ids == [1, 31]
    flags = [f for spec in inputs for f in ("--input", spec)]
    assert model.generate([1, 2, 3, 4], max_new_tokens=3, seed=7).token_ids == \
        ran(SPECULATIVE, "request.tokens", [1, 2, 3, 4], 3, "--seed", "7", *flags)
