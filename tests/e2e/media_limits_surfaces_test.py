"""The media budgets (include/ogai/media.h) on `ogai generate` and `ogai chat` (LoadOptions::media_limits),
on the tiny-vlm package tools/fixtures/multimodal_package.py writes (the multimodal_packages test): each
flag, lowered below the input, refuses it with a message naming the flag, and raised to the input's size
(or above) lets the same request through, so the flag is what decides.
Usage: media_limits_surfaces_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import math
import os
import struct
import sys
import unittest
import wave

from PIL import Image

from cli_support import BINARY, run, temp_dir

OGAI = sys.argv.pop(1)
VLM = os.path.join(BINARY, "multimodal", "tiny-vlm")


def write_png(path, size=(8, 8)):
    img = Image.new("RGB", size)
    img.putdata([((x * 37) % 256, (y * 53) % 256, (x * y) % 256) for y in range(size[1]) for x in range(size[0])])
    img.save(path)
    return path


def write_wav(path, seconds):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(struct.pack("<h", int(9000 * math.sin(2 * math.pi * 440 * i / 16000)))
                               for i in range(int(seconds * 16000))))
    return path


class GenerateLimits(unittest.TestCase):
    def setUp(self):
        d = temp_dir(self)
        self.png = write_png(os.path.join(d, "a.png"))  # 64 pixels, 192 bytes decoded
        self.wav = write_wav(os.path.join(d, "a.wav"), 0.3)  # 0.3 s: 4800 float32 samples, 19,200 bytes

    def generate(self, prompt, media, *flags):
        return run(OGAI, "generate", VLM, "--prompt", prompt, "--max-new-tokens", "2", "--temperature", "0",
                   *media, *flags)

    def check(self, prompt, media, flag, refused, accepted):
        ok = self.generate(prompt, media, flag, accepted)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        r = self.generate(prompt, media, flag, refused)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn(flag, r.stderr)

    def test_image_flags(self):
        image = ["--image", self.png]
        size = os.path.getsize(self.png)
        for flag, refused, accepted in [("--max-image-pixels", "63", "100000"), ("--max-decoded-bytes", "100", "1000000"),
                                        ("--max-media-bytes", str(size - 1), str(size))]:
            with self.subTest(flag=flag):
                self.check("<bos> describe <|image|>", image, flag, refused, accepted)

    def test_audio_flags(self):
        audio = ["--audio", self.wav]
        size = os.path.getsize(self.wav)
        for flag, refused, accepted in [("--max-audio-seconds", "0.2", "0.31"), ("--max-decoded-bytes", "19199", "1000000"),
                                        ("--max-media-bytes", str(size - 1), str(size))]:
            with self.subTest(flag=flag):
                self.check("<bos> hear <|audio|>", audio, flag, refused, accepted)

    def test_media_parts(self):
        self.check("<bos> compare <|image|> and <|audio|>", ["--image", self.png, "--audio", self.wav],
                   "--max-media-parts", "1", "2")


class ChatLimits(unittest.TestCase):
    def chat(self, png, *flags):
        return run(OGAI, "chat", VLM, "--max-new-tokens", "2", "--temperature", "0", *flags,
                   stdin="/image " + png + "\ndescribe\n")

    def test_each_flag_refuses_the_turn(self):
        png = write_png(os.path.join(temp_dir(self), "a.png"))
        size = os.path.getsize(png)
        for flag, refused, accepted in [("--max-image-pixels", "63", "100000"), ("--max-decoded-bytes", "100", "1000000"),
                                        ("--max-media-bytes", str(size - 1), str(size)), ("--max-media-parts", None, "1")]:
            with self.subTest(flag=flag):
                ok = self.chat(png, flag, accepted)
                self.assertEqual(ok.returncode, 0, ok.stderr)
                if refused is None:
                    continue
                r = self.chat(png, flag, refused)
                self.assertNotEqual(r.returncode, 0, r.stdout)
                self.assertIn(flag, r.stderr)

    def test_media_parts_counts_the_conversation(self):
        png = write_png(os.path.join(temp_dir(self), "a.png"))
        turns = "/image {0}\ndescribe\n/image {0}\nand again\n".format(png)
        r = run(OGAI, "chat", VLM, "--max-new-tokens", "2", "--temperature", "0", "--max-media-parts", "1", stdin=turns)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("2 images and audio clips, over the limit of 1 (--max-media-parts)", r.stderr)
        ok = run(OGAI, "chat", VLM, "--max-new-tokens", "2", "--temperature", "0", "--max-media-parts", "2", stdin=turns)
        self.assertEqual(ok.returncode, 0, ok.stderr)


if __name__ == "__main__":
    unittest.main()
