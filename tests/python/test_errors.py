"""ogai's errors arrive as ogai.Error subclasses with the C++ messages; Python type errors as TypeError."""
import os
import shutil

import pytest

import ogai
from conftest import BINARY, PROMPT, STORIES, cli


def cli_error(*args):
    """The message `ogai` prints for a failing command (after its `ogai: error: ` prefix)."""
    r = cli(*args, check=False)
    assert r.returncode != 0
    return r.stderr.split("ogai: error: ", 1)[1].rstrip("\n")


def test_hierarchy():
    for cls in (ogai.InvalidArgumentError, ogai.NotFoundError, ogai.ParseError, ogai.InvalidPackageError,
                ogai.UnsupportedError, ogai.ExecutionError, ogai.CancelledError, ogai.InternalError):
        assert issubclass(cls, ogai.Error)
    assert issubclass(ogai.InvalidArgumentError, ValueError)
    assert issubclass(ogai.NotFoundError, FileNotFoundError)
    assert issubclass(ogai.UnsupportedError, NotImplementedError)


def test_bad_path_names_it(tmp_path):
    missing = str(tmp_path / "no-such-package")
    with pytest.raises(ogai.NotFoundError) as e:
        ogai.Model(missing)
    assert missing in str(e.value)
    assert e.value.code == "not_found"
    assert str(e.value) == cli_error("generate", missing, "--prompt", "x")


def test_invalid_package(tmp_path):
    broken = tmp_path / "stories"
    shutil.copytree(STORIES, broken)
    os.remove(broken / "model.onnx")
    with pytest.raises(ogai.Error) as e:
        ogai.Model(str(broken))
    assert "model.onnx" in str(e.value)
    assert str(e.value).rstrip("\n") == cli_error("generate", str(broken), "--prompt", "x")


@pytest.mark.parametrize("kwargs,name", [
    (dict(top_p=1.5), "top_p"),
    (dict(temperature=-1.0), "temperature"),
    (dict(top_k=-2), "top_k"),
    (dict(max_new_tokens=-3), "max_new_tokens"),
    (dict(min_p=2.0), "min_p"),
    (dict(repetition_penalty=0.0), "repetition_penalty"),
])
def test_values_out_of_range_are_named(stories, kwargs, name):
    with pytest.raises(ogai.InvalidArgumentError) as e:
        stories.generate(PROMPT, **kwargs)
    assert name in str(e.value)
    assert e.value.code == "invalid_argument"
    assert name in e.value.where


def test_same_message_as_the_cli(stories):
    with pytest.raises(ogai.InvalidArgumentError) as e:
        stories.generate(PROMPT, top_p=1.5)
    assert str(e.value) == cli_error("generate", STORIES, "--prompt", PROMPT, "--top-p", "1.5")


def test_type_errors_name_the_argument(stories):
    with pytest.raises(TypeError, match=r"generate\(\): max_new_tokens must be an int, not str"):
        stories.generate(PROMPT, max_new_tokens="3")
    with pytest.raises(TypeError, match=r"generate\(\): temperature must be a number, not str"):
        stories.generate(PROMPT, temperature="warm")
    with pytest.raises(TypeError, match="do_sample must be a bool"):
        stories.generate(PROMPT, do_sample=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_tokens'"):
        stories.generate(PROMPT, max_tokens=3)
    with pytest.raises(TypeError, match="prompt must be a str or a list of token ids"):
        stories.generate(42)
    with pytest.raises(TypeError, match="stop must be a str or a list of str"):
        stories.generate(PROMPT, stop=3)


def test_seed_out_of_range(stories):
    with pytest.raises(ogai.InvalidArgumentError, match="seed: -1 is out of range"):
        stories.generate(PROMPT, seed=-1)


def test_load_options():
    with pytest.raises(ogai.InvalidArgumentError, match="'tpu' is not one of cpu, cuda"):
        ogai.Model(STORIES, ep="tpu")
    with pytest.raises(ogai.InvalidArgumentError, match="threads: 0 must be >= 1"):
        ogai.Model(STORIES, threads=0)
    assert ogai.Model(STORIES, threads=1).generate(PROMPT, max_new_tokens=3, temperature=0).token_ids


def ort_ships_cuda():
    with open(os.path.join(BINARY, "CMakeCache.txt"), encoding="utf-8") as f:
        lib = next(l.split("=", 1)[1].strip() for l in f if l.startswith("ONNXRUNTIME_LIBRARY:"))
    return os.path.exists(os.path.join(os.path.dirname(lib), "libonnxruntime_providers_cuda.so"))


@pytest.mark.skipif(ort_ships_cuda(), reason="this ONNX Runtime has a CUDA provider")
def test_cuda_with_a_cpu_only_runtime_says_so():
    with pytest.raises(ogai.UnsupportedError) as e:
        ogai.Model(STORIES, ep="cuda")
    message = str(e.value)
    for needle in ("is CPU-only", "ONNXRUNTIME_ROOT", "docs/gpu.md", "--ep cpu"):
        assert needle in message
    assert message == cli_error("generate", STORIES, "--prompt", "x", "--ep", "cuda")
