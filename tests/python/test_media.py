"""Images and audio through the Python API (python/src/media_convert.h): generate(images=, audio=)
and chat content parts become the C++ API's media (include/ogai/media.h). A text-only package
refuses them by name (never drops them); wrong shapes and unreadable paths raise naming the
element."""
import os

import pytest

import ogai

PNG_1X1 = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
                        "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082")


def test_text_parts_render_as_the_message_text(tiny):
    parts = [{"role": "user", "content": [{"type": "text", "text": "Tell me "}, {"type": "text", "text": "a story."}]}]
    assert tiny.render_chat(parts) == tiny.render_chat([{"role": "user", "content": "Tell me a story."}])


def test_media_on_a_text_only_package_is_refused_by_name(tiny, tmp_path):
    with pytest.raises(ogai.UnsupportedError) as e:
        tiny.generate("hi", images=[PNG_1X1], max_new_tokens=1)
    assert e.value.where == "media[0]"
    path = tmp_path / "a.png"
    path.write_bytes(PNG_1X1)
    with pytest.raises(ogai.UnsupportedError):
        tiny.generate("hi", audio=[str(path)], max_new_tokens=1)
    with pytest.raises(ogai.UnsupportedError) as e:
        tiny.chat([{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                                {"type": "image", "image": path}]}], max_new_tokens=1)
    assert e.value.where == "messages[0].parts[1]"


def test_wrong_shapes_and_paths_name_the_element(tiny, tmp_path):
    with pytest.raises(TypeError) as e:
        tiny.generate("hi", images=PNG_1X1)
    assert "images" in str(e.value)
    with pytest.raises(TypeError) as e:
        tiny.generate("hi", images=[3])
    assert "images[0]" in str(e.value) and "int" in str(e.value)
    with pytest.raises(ogai.NotFoundError) as e:
        tiny.generate("hi", audio=[str(tmp_path / "missing.wav")])
    assert "missing.wav" in str(e.value)
    with pytest.raises(ogai.InvalidArgumentError) as e:
        tiny.generate("hi", images=[str(tmp_path)])
    assert "not a regular file" in str(e.value)
    with pytest.raises(ogai.InvalidArgumentError) as e:
        tiny.chat([{"role": "user", "content": [{"type": "video", "video": b""}]}])
    assert "messages[0].content[0].type" in str(e.value)
    with pytest.raises(ogai.InvalidArgumentError) as e:
        tiny.chat([{"role": "user", "content": [{"type": "image"}]}])
    assert "messages[0].content[0].image" in str(e.value)
