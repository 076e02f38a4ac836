"""ogai.Model.generate(..., images=[...], audio=[...]) on the tiny-vlm package the
multimodal_packages test writes (tools/fixtures/multimodal_package.py; docs/multimodal.md): the
same ids as the command line for the same files, bytes and paths alike, errors as ogai errors."""
import json
import os

import pytest
from PIL import Image

import ogai
from conftest import BINARY, cli

VLM = os.path.join(BINARY, "multimodal", "tiny-vlm")
PROMPT = "<bos> describe <|image|> the image"


@pytest.fixture(scope="module")
def vlm():
    return ogai.Model(VLM)


def png(tmp_path, name, seed):
    path = tmp_path / name
    img = Image.new("RGB", (8, 8))
    img.putdata([((x * 31 + seed * 57) % 256, (y * 47 + seed * 13) % 256, (x + y + seed) % 256)
                 for y in range(8) for x in range(8)])
    img.save(path)
    return path


def test_images_as_paths_and_bytes_equal_the_cli(vlm, tmp_path):
    a, b = png(tmp_path, "a.png", 1), png(tmp_path, "b.png", 2)
    by_path = vlm.generate(PROMPT, max_new_tokens=6, images=[a], temperature=0)
    by_bytes = vlm.generate(PROMPT, max_new_tokens=6, images=[a.read_bytes()], temperature=0)
    other = vlm.generate(PROMPT, max_new_tokens=6, images=[str(b)], temperature=0)
    assert by_path.token_ids == by_bytes.token_ids
    assert by_path.token_ids != other.token_ids
    out = cli("generate", VLM, "--prompt", PROMPT, "--image", str(a), "--max-new-tokens", "6", "--temperature", "0",
              "--json")
    assert json.loads(out.stdout)["ids"] == by_path.token_ids


def test_placeholder_mismatch_raises(vlm, tmp_path):
    with pytest.raises(ogai.Error, match="placeholder"):
        vlm.generate(PROMPT, max_new_tokens=2, images=[])
    with pytest.raises(TypeError):
        vlm.generate(PROMPT, max_new_tokens=2, images="a.png")
