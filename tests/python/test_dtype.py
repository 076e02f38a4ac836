"""ogai.Model(..., dtype=...): an Optimum / onnx-community folder's graph variant picked by
transformers.js's dtype name, as `ogai generate --dtype` picks it (the folder written by
tools/fixtures/optimum_export.py, the optimum_folders fixture): the same greedy ids per variant;
an unknown name, a variant the folder lacks and a dtype for a v1 package are refused naming it."""
import os

import pytest

import ogai
from conftest import BINARY, STORIES, cli_generate

DTYPES = os.path.join(BINARY, "optimum_folders", "optimum-llama-dtypes")


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "q8", "q4"])
def test_each_variant_equals_the_cli(dtype):
    model = ogai.Model(DTYPES, dtype=dtype)
    result = model.generate("hello world", max_new_tokens=8, temperature=0)
    expected = cli_generate(DTYPES, "hello world", "--dtype", dtype, "--max-new-tokens", "8", "--temperature", "0")
    assert result.token_ids == expected["ids"]
    assert result.text == expected["text"]


def test_unknown_missing_and_misplaced_dtypes_are_refused():
    with pytest.raises(ogai.InvalidArgumentError, match="q5"):
        ogai.Model(DTYPES, dtype="q5")
    with pytest.raises(ogai.Error, match="bnb4"):  # the folder has no model_bnb4.onnx
        ogai.Model(DTYPES, dtype="bnb4")
    with pytest.raises(ogai.Error, match="dtype"):
        ogai.Model(STORIES, dtype="q4")
