"""ogai.Workflow with media in and out: the speech_wav fixture's audio.wav (the header the
reference pins, decoded by Python's wave module), an in-range copy of the diffusion fixture
(tests/e2e/image_package.py) whose image.png Pillow decodes to the pixels NumPy recomputes from the
emitted tensor, the vlm fixture given PNG bytes as its media input (the same tokens as
`ogai run --input request.image=@FILE`), and the raw diffusion fixture's out-of-range image
refused naming the output."""
import io
import json
import os
import sys
import wave

import numpy as np
import pytest
from PIL import Image

import ogai
from conftest import METADATA_FIXTURES, SOURCE, cli

sys.path.insert(0, os.path.join(SOURCE, "tests", "e2e"))
from image_package import expected_pixels, in_range_diffusion, noise  # noqa: E402

SPEECH = os.path.join(METADATA_FIXTURES, "speech_wav")
VLM = os.path.join(METADATA_FIXTURES, "vlm")
DIFFUSION = os.path.join(METADATA_FIXTURES, "diffusion")


def test_speech_wav_media_output():
    out = ogai.Workflow(SPEECH).run({"request.prompt_tokens": [[2, 6, 7, 8, 9, 3]]})
    assert list(out["media"]) == ["audio.wav"]
    wav = out["media"]["audio.wav"]
    with wave.open(io.BytesIO(wav)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (2, 2, 24000, 32)
    assert len(wav) == 44 + 128
    assert out["outputs"]["audio"]["shape"] == [1, 2, 64]


def test_image_png_pixels(tmp_path):
    package = in_range_diffusion(str(tmp_path / "diffusion_in_range"))
    out = ogai.Workflow(package).run({"request.input_ids": [[1, 2]], "noise": np.array(noise(), np.float32)},
                                     max_new_tokens=2)
    image = np.array(out["outputs"]["image"]["data"], np.float32).reshape(out["outputs"]["image"]["shape"])
    png = Image.open(io.BytesIO(out["media"]["image.png"]))
    assert (png.format, png.mode, png.size) == ("PNG", "RGB", (4, 4))
    np.testing.assert_array_equal(np.asarray(png), expected_pixels(image)[0])
    assert "image" in out["outputs"] and out["media"].keys() == {"image.png"}


def test_png_bytes_as_a_media_input_equal_the_cli(tmp_path):
    buf = io.BytesIO()
    Image.new("RGB", (3, 3), (10, 200, 30)).save(buf, "PNG")  # the fixture pins 4 patches: 28 x 28
    path = tmp_path / "green.png"
    path.write_bytes(buf.getvalue())
    out = ogai.Workflow(VLM).run({"request.image": buf.getvalue(), "request.prompt_tokens": [[4, 5]]},
                                 max_new_tokens=2, seed=7)
    doc = json.loads(cli("run", VLM, "--input", f"request.image=@{path}", "--input", "request.prompt_tokens=[[4,5]]",
                         "--max-new-tokens", "2", "--seed", "7", "--json").stdout)
    key = "tokens" if "tokens" in doc["outputs"] else "tokens.row.0"
    assert out["outputs"][key]["shape"] == [1, 2]
    assert out["outputs"][key]["data"] == doc["outputs"][key]["data"]
    assert out["media"] == {}
    with pytest.raises(ogai.Error, match="request.image"):
        ogai.Workflow(VLM).run({"request.image": b"not an image at all", "request.prompt_tokens": [[4, 5]]},
                               max_new_tokens=2)


def test_out_of_range_image_is_refused_naming_the_output():
    wf = ogai.Workflow(DIFFUSION)
    inputs = {"request.input_ids": [[1, 2]], "noise": noise()}
    with pytest.raises(ogai.InvalidPackageError, match=r"outputs\.image.*negative_one_to_one"):
        wf.run(inputs, max_new_tokens=2)
    out = wf.run(inputs, max_new_tokens=2, media=False)  # the tensors are still there
    assert out["outputs"]["image"]["shape"] == [1, 3, 4, 4] and out["media"] == {}
