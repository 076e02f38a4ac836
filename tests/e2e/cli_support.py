"""Shared helpers of the end-to-end CLI tests: running ogai, the packages, the stories260k golden.

The golden ids and text are read at run time from ../shared/models/stories260k/README.md (never
copied into the repository). Packages are copied into temporary folders before they are broken.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

SHARED = os.environ["OGAI_SHARED_DIR"]
SOURCE = os.environ["OGAI_SOURCE_DIR"]
BINARY = os.environ["OGAI_BINARY_DIR"]
STORIES = os.path.join(BINARY, "packages", "stories260k")
FIXTURES = os.path.join(SOURCE, "tests", "data", "packages")
TINY_E2B = os.path.join(FIXTURES, "tiny-e2b")
TINY_MOE = os.path.join(FIXTURES, "tiny-moe")
STORIES_PROMPT = "Once upon a time"
STORIES_PROMPT_IDS = [1, 403, 407, 261, 378]


def run(exe, *args, stdin=None, env=None, timeout=120):
    """Runs `exe args...`, returns the CompletedProcess (text mode, both streams captured)."""
    return subprocess.run([exe, *args], input=stdin, capture_output=True, text=True, env=env, timeout=timeout)


def json_line(test, result):
    """The one JSON object a successful `--json` command printed on its one stdout line."""
    test.assertEqual(result.returncode, 0, result.stderr)
    lines = result.stdout.splitlines()
    test.assertEqual(len(lines), 1, result.stdout)
    return json.loads(lines[0])


def stories_golden():
    """(ids, text) of the README's golden greedy continuation of "Once upon a time"."""
    with open(os.path.join(SHARED, "models", "stories260k", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    block = readme.split("Greedy (argmax) next 60 token ids:", 1)[1].split("which decode to:", 1)
    ids = [int(t) for t in block[0].split()]
    text = re.match(r'\s*"(.*)"\s*$', block[1].splitlines()[0]).group(1).replace("\\n", "\n")
    if len(ids) != 60 or not text:
        raise AssertionError("could not read the golden from the stories260k README")
    return ids, text


def copy_package(src, parent):
    """Copies package `src` into a new folder under `parent` and returns its path."""
    dst = os.path.join(parent, os.path.basename(src.rstrip("/")))
    shutil.copytree(src, dst)
    for root, _, files in os.walk(dst):
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    return dst


def without_chat_template(src, parent):
    """A copy of package `src` whose chat template is gone (no .jinja, no tokenizer_config key)."""
    dst = copy_package(src, parent)
    os.remove(os.path.join(dst, "chat_template.jinja"))
    config_path = os.path.join(dst, "tokenizer_config.json")
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    config.pop("chat_template", None)
    with open(config_path, "w", encoding="utf-8") as f:
        json.dump(config, f)
    return dst


def temp_dir(test_case):
    """A temporary folder removed when `test_case` ends."""
    d = tempfile.mkdtemp(prefix="ogai_e2e_")
    test_case.addCleanup(shutil.rmtree, d, True)
    return d
