"""ogai.SAMPLING_FIELDS (include/ogai/sampling_fields.h) drives the sampling keywords."""
import ogai
import pytest

# A value that leaves each documented field at its neutral setting.
NEUTRAL = {"temperature": 0.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0, "typical_p": 1.0,
           "repetition_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0}


def test_the_table_is_the_documented_set():
    assert set(ogai.SAMPLING_FIELDS) == set(NEUTRAL)


@pytest.mark.parametrize("name", ogai.SAMPLING_FIELDS)
def test_each_field_is_a_keyword(stories, name):
    greedy = stories.generate("Once upon a time", max_new_tokens=4, temperature=0)
    with_field = stories.generate("Once upon a time", max_new_tokens=4, **{"temperature": 0, name: NEUTRAL[name]})
    assert with_field.token_ids == greedy.token_ids


@pytest.mark.parametrize("name", ogai.SAMPLING_FIELDS)
def test_each_field_refuses_a_string_by_name(stories, name):
    with pytest.raises(TypeError, match=name):
        stories.generate("Once upon a time", max_new_tokens=4, **{name: "x"})


def test_a_field_reaches_the_sampler(stories):
    # repetition_penalty through the table changes greedy output on stories260k (it repeats).
    plain = stories.generate("Once upon a time", max_new_tokens=40, temperature=0)
    penalized = stories.generate("Once upon a time", max_new_tokens=40, temperature=0, repetition_penalty=2.0)
    assert plain.token_ids != penalized.token_ids
