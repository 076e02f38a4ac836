"""Fixtures of the Python package's tests (run by ctest as python_test, or by hand:
PYTHONPATH=build/python OGAI_EXE=build/src/cli/ogai /usr/bin/python3 -m pytest tests/python).

The packages: stories260k (assembled by setup into <build>/packages) and the committed tiny-e2b.
The `ogai` command line of the same build is the reference the Python results must equal.
"""
import json
import os
import subprocess

import pytest

import ogai

SOURCE = os.environ.get("OGAI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("OGAI_BINARY_DIR", os.path.join(SOURCE, "build"))
SHARED = os.environ.get("OGAI_SHARED_DIR", os.path.join(SOURCE, "..", "shared"))
OGAI_EXE = os.environ.get("OGAI_EXE", os.path.join(BINARY, "src", "cli", "ogai"))
STORIES = os.path.join(BINARY, "packages", "stories260k")
TINY_E2B = os.path.join(SOURCE, "tests", "data", "packages", "tiny-e2b")
METADATA_FIXTURES = os.path.join(SHARED, "conformance", "metadata", "fixtures")
PROMPT = "Once upon a time"


def cli(*args, check=True):
    """Runs the ogai command line; its CompletedProcess (text mode)."""
    r = subprocess.run([OGAI_EXE, *args], capture_output=True, text=True, timeout=300)
    if check and r.returncode != 0:
        raise AssertionError(f"ogai {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def cli_generate(package, prompt, *flags):
    """The `ogai generate --json` object for `prompt` on `package`."""
    return json.loads(cli("generate", package, "--prompt", prompt, "--json", *flags).stdout)


def thread_count():
    """Threads of this process (the C++ workers too, which `threading` does not see)."""
    with open("/proc/self/status", encoding="ascii") as f:
        return int(next(line.split()[1] for line in f if line.startswith("Threads:")))


@pytest.fixture(scope="session")
def stories():
    return ogai.Model(STORIES)


@pytest.fixture(scope="session")
def tiny():
    return ogai.Model(TINY_E2B)
