"""ogai.validate: the checks of `ogai validate`, as a result object."""
import os

import pytest

import ogai
from conftest import METADATA_FIXTURES, STORIES, TINY_E2B, cli


def test_valid_packages():
    for path in (STORIES, TINY_E2B, os.path.join(METADATA_FIXTURES, "decoder")):
        result = ogai.validate(path)
        assert result.valid and bool(result)
        assert result.problems == []


def test_invalid_package_lists_the_cli_lines():
    path = os.path.join(METADATA_FIXTURES, "validator_missing_artifact")
    result = ogai.validate(path)
    assert not result.valid and not result
    assert len(result.problems) == 1
    problem = result.problems[0]
    assert problem.rule == "PKG"
    assert problem.path == "pipeline.workflow.components.missing.implementation.artifact"
    assert "missing.onnx" in problem.message
    cli_lines = cli("validate", path, check=False).stdout.splitlines()
    assert [str(p) for p in result.problems] == cli_lines


def test_missing_path(tmp_path):
    with pytest.raises(ogai.NotFoundError, match="no-package-here"):
        ogai.validate(str(tmp_path / "no-package-here"))
