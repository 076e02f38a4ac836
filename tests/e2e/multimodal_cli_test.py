"""`ogai generate --image/--audio` and `ogai chat`'s /image and /audio (docs/multimodal.md) on the
tiny-vlm package tools/fixtures/multimodal_package.py writes into the build dir (the
multimodal_packages test). Images are made with Pillow, clips with wav_file.py."""
import math
import os
import sys
import unittest

from PIL import Image

from cli_support import BINARY, TINY_E2B, json_line, run, temp_dir
from wav_file import write_pcm16

OGAI = sys.argv.pop(1)
VLM = os.path.join(BINARY, "multimodal", "tiny-vlm")
PROMPT = "<bos> describe <|image|> the image"
SOFT_IMAGE, BEGIN_IMAGE = 64, 65


def image(directory, name, seed, size=(8, 8)):
    path = os.path.join(directory, name)
    img = Image.new("RGB", size)
    img.putdata([((x * 37 + seed * 91) % 256, (y * 53 + seed * 17) % 256, (x * y + seed * 7) % 256)
                 for y in range(size[1]) for x in range(size[0])])
    img.save(path)
    return path


def clip(directory, name, seconds, hz):
    path = os.path.join(directory, name)
    write_pcm16(path, [int(12000 * math.sin(2 * math.pi * hz * i / 16000)) for i in range(int(seconds * 16000))], 16000)
    return path


def generate(*flags):
    return run(OGAI, "generate", VLM, "--json", "--max-new-tokens", "8", "--temperature", "0", *flags)


class MultimodalCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(self)
        self.red = image(self.dir, "red.png", 1)
        self.blue = image(self.dir, "blue.jpg", 2, (20, 12))

    def test_images_change_the_reply_and_expand_the_prompt(self):
        a = json_line(self, generate("--prompt", PROMPT, "--image", self.red))
        b = json_line(self, generate("--prompt", PROMPT, "--image", self.blue))
        again = json_line(self, generate("--prompt", PROMPT, "--image", self.red))
        self.assertEqual(a["ids"], again["ids"])
        self.assertNotEqual(a["ids"], b["ids"])
        self.assertEqual(a["prompt_ids"].count(SOFT_IMAGE), 4)
        self.assertEqual(a["prompt_ids"].count(BEGIN_IMAGE), 1)

    def test_audio_and_images_in_order(self):
        wav = clip(self.dir, "tone.wav", 0.3, 440)
        prompt = "<bos> compare <|image|> and <|audio|> and <|image|>"
        r = json_line(self, generate("--prompt", prompt, "--image", self.red, "--audio", wav, "--image", self.blue))
        swapped = json_line(self, generate("--prompt", prompt, "--image", self.blue, "--audio", wav,
                                           "--image", self.red))
        self.assertNotEqual(r["ids"], swapped["ids"])

    def test_chat_renders_the_image_part(self):
        r = json_line(self, generate("--chat", "--prompt", "describe", "--image", self.red))
        self.assertEqual(r["prompt_ids"].count(SOFT_IMAGE), 4)

    def test_placeholder_mismatch_is_an_error(self):
        r = generate("--prompt", PROMPT, "--image", self.red, "--image", self.blue)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("1 placeholder '<|image|>' but 2 images", r.stderr)

    def test_missing_file_and_text_only_package_are_refused(self):
        r = generate("--prompt", PROMPT, "--image", os.path.join(self.dir, "absent.png"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("absent.png", r.stderr)
        r = run(OGAI, "generate", TINY_E2B, "--prompt", "hello", "--image", self.red)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("media[0]", r.stderr)

    def test_chat_attaches_images_to_the_next_message(self):
        lines = ["/image " + self.red, "describe", "/image " + self.blue, "and this"]
        r = run(OGAI, "chat", VLM, "--max-new-tokens", "6", "--temperature", "0", stdin="".join(l + "\n" for l in lines))
        self.assertEqual(r.returncode, 0, r.stderr)
        other = run(OGAI, "chat", VLM, "--max-new-tokens", "6", "--temperature", "0",
                    stdin="".join(l + "\n" for l in ["/image " + self.blue, "describe"]))
        self.assertEqual(other.returncode, 0, other.stderr)
        self.assertNotEqual(r.stdout.splitlines()[0], other.stdout.splitlines()[0])
        bad = run(OGAI, "chat", VLM, stdin="/image /nonexistent.png\n")
        self.assertIn("nonexistent.png", bad.stderr)


if __name__ == "__main__":
    unittest.main()
