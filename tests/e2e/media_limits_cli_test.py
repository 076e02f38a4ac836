"""The media budgets as `ogai run` flags (media/media_limits.h): each limit, lowered by its flag,
refuses an input that the default (and a limit equal to the input's size) accepts, and the error
names the flag and the input. Audio through the CTC audio package (ctc_package.py), images
through the conformance `vlm` fixture (an image-preprocess@1 adapter).
Usage: media_limits_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import os
import sys
import unittest

from PIL import Image

import ctc_package
from cli_support import SHARED, run, temp_dir

OGAI = sys.argv.pop(1)
VLM = os.path.join(SHARED, "conformance", "metadata", "fixtures", "vlm")


class AudioLimits(unittest.TestCase):
    def setUp(self):
        d = temp_dir(self)
        self.pkg = ctc_package.write_package(os.path.join(d, "audio"), "audio")
        self.wav = os.path.join(d, "clip.wav")
        ctc_package.write_wav(self.wav, [1, 2, 3] * 100)  # 300 samples at 16 kHz: 18.75 ms; 644 bytes; 1200 decoded

    def ctc(self, *flags):
        return run(OGAI, "run", self.pkg, "--input", "request.audio=@" + self.wav, *flags)

    def test_each_limit_names_its_flag(self):
        for flag, refused, accepted in [("--max-audio-seconds", "0.01", "0.019"),
                                        ("--max-decoded-bytes", "1199", "1200"),
                                        ("--max-media-bytes", "643", "644")]:
            with self.subTest(flag=flag):
                ok = self.ctc(flag, accepted)
                self.assertEqual(ok.returncode, 0, ok.stderr)
                r = self.ctc(flag, refused)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertIn(flag, r.stderr)
                self.assertIn("request.audio", r.stderr)

    def test_media_parts(self):
        r = self.ctc("--input", "other=@" + self.wav, "--max-media-parts", "1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("2 media files, over the limit of 1 (--max-media-parts)", r.stderr)
        self.assertEqual(self.ctc("--max-media-parts", "1").returncode, 0)


class ImageLimits(unittest.TestCase):
    def test_each_limit_names_its_flag(self):
        path = os.path.join(temp_dir(self), "a.png")
        Image.new("RGB", (3, 3), (10, 200, 30)).save(path)  # 9 pixels (27 bytes) decoded, resized to 28 x 28 (784, 2352) by the fixture
        size = os.path.getsize(path)

        def vlm(*flags):
            return run(OGAI, "run", VLM, "--input", "request.image=@" + path, "--input", "request.prompt_tokens=[[4,5]]",
                       "--max-new-tokens", "1", *flags)

        for flag, refused, accepted in [("--max-image-pixels", "8", "784"), ("--max-decoded-bytes", "26", "2352"),
                                        ("--max-media-bytes", str(size - 1), str(size))]:
            with self.subTest(flag=flag):
                ok = vlm(flag, accepted)
                self.assertEqual(ok.returncode, 0, ok.stderr)
                r = vlm(flag, refused)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertIn(flag, r.stderr)
                self.assertIn("request.image", r.stderr)


class SeveralFilesForOneInput(unittest.TestCase):
    """An encoded media input holds one file, as the reference runtime's preprocess adapters take it:
    a second file for it is refused naming the input and saying what to do (docs/media.md)."""

    def test_second_image_is_refused_naming_the_input(self):
        d = temp_dir(self)
        a, b = os.path.join(d, "a.png"), os.path.join(d, "b.png")
        Image.new("RGB", (3, 3), (10, 200, 30)).save(a)
        Image.new("RGB", (3, 3), (90, 20, 30)).save(b)
        args = ["run", VLM, "--input", "request.prompt_tokens=[[4,5]]", "--max-new-tokens", "1"]
        r = run(OGAI, *args, "--input", "request.image=@" + a, "--input", "request.image=@" + b)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("--input request.image", r.stderr)
        self.assertIn("an encoded media input holds one file", r.stderr)
        self.assertIn("once per file", r.stderr)
        one = run(OGAI, *args, "--input", "request.image=@" + b)
        self.assertEqual(one.returncode, 0, one.stderr)
        other = run(OGAI, *args, "--input", "request.prompt_tokens=[[4,5]]")
        self.assertIn("is given twice", other.stderr)
        self.assertNotIn("media input", other.stderr)


if __name__ == "__main__":
    unittest.main()
