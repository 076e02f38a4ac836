"""ogai.Model's media budgets (max_media_parts, max_media_bytes, max_image_pixels, max_decoded_bytes,
max_audio_seconds; LoadOptions::media_limits) on the tiny-vlm package the multimodal_packages test
writes: a budget below the request's media refuses it with an InvalidArgumentError naming the flag,
one at or above it lets the same request through; a budget < 1 is refused at load."""
import io
import math
import os
import struct
import wave

import pytest
from PIL import Image

import ogai
from conftest import BINARY

VLM = os.path.join(BINARY, "multimodal", "tiny-vlm")


def png_bytes(size=(8, 8)):
    img = Image.new("RGB", size)
    img.putdata([((x * 29) % 256, (y * 61) % 256, (x ^ y) % 256) for y in range(size[1]) for x in range(size[0])])
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def wav_bytes(seconds):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(i / 5))) for i in range(int(seconds * 16000))))
    return buf.getvalue()


IMAGE = "<bos> describe <|image|>"
AUDIO = "<bos> hear <|audio|>"


@pytest.mark.parametrize("keyword,refused,accepted,prompt,media", [
    ("max_image_pixels", 63, 64, IMAGE, "image"),
    ("max_decoded_bytes", 100, 10 ** 6, IMAGE, "image"),
    ("max_media_bytes", -1, 0, IMAGE, "image"),  # relative to the file's size
    ("max_audio_seconds", 0.2, 0.31, AUDIO, "audio"),
    ("max_decoded_bytes", 19199, 19200, AUDIO, "audio"),  # 4800 float32 samples
    ("max_media_parts", 1, 2, "<bos> compare <|image|> and <|audio|>", "both"),
])
def test_each_budget_names_its_flag(keyword, refused, accepted, prompt, media):
    png, wav = png_bytes(), wav_bytes(0.3)
    kwargs = {"images": [png]} if media == "image" else {"audio": [wav]} if media == "audio" else {"images": [png], "audio": [wav]}
    if keyword == "max_media_bytes":
        size = len(png)
        refused, accepted = size + refused, size + accepted
    ok = ogai.Model(VLM, **{keyword: accepted}).generate(prompt, max_new_tokens=2, temperature=0, **kwargs)
    assert len(ok.token_ids) == 2
    with pytest.raises(ogai.InvalidArgumentError, match="--" + keyword.replace("_", "-")):
        ogai.Model(VLM, **{keyword: refused}).generate(prompt, max_new_tokens=2, temperature=0, **kwargs)


def test_a_budget_below_one_is_refused_at_load():
    with pytest.raises(ogai.InvalidArgumentError, match="max_image_pixels"):
        ogai.Model(VLM, max_image_pixels=0)
