"""End-to-end checks of images through `ogai run` (issue 34): the conformance `vlm` fixture
(image-preprocess@1 adapter -> vision encoder -> embedding -> KV decoder loop) given an image file
as a media input (`--input request.image=@FILE`), and hostile files each refused with a clear
error naming the input. Images are made here with Debian's Pillow.
Usage: image_run_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import io
import os
import struct
import sys
import unittest
import zlib

import numpy as np
from PIL import Image

from cli_support import SHARED, json_line, run, temp_dir

OGAI = sys.argv.pop(1)
VLM = os.path.join(SHARED, "conformance", "metadata", "fixtures", "vlm")


def write(test, name, data):
    path = os.path.join(temp_dir(test), name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def encoded(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def vlm(image_path, *extra):
    return run(OGAI, "run", VLM, "--input", f"request.image=@{image_path}", "--input",
               "request.prompt_tokens=[[4,5]]", "--max-new-tokens", "2", "--seed", "7", *extra)


class VlmImageRun(unittest.TestCase):
    def test_red_png_gives_two_tokens(self):
        red = encoded(Image.new("RGB", (1, 1), (255, 0, 0)), "PNG")
        self.assertEqual(len(red), 69)
        doc = json_line(self, vlm(write(self, "red.png", red), "--json"))
        tokens = doc["outputs"].get("tokens") or doc["outputs"].get("tokens.row.0")
        self.assertIsNotNone(tokens, doc)
        self.assertEqual(tokens["shape"], [1, 2])
        self.assertEqual(tokens["dtype"], "int64")

    def test_every_format_runs(self):
        # The fixture pins pixel_values to [4, 1176]: its program (pixel_area 224..224, multiple 14)
        # makes 28 x 28 from images this small.
        photo = Image.fromarray(np.random.default_rng(3).integers(0, 256, (3, 3, 3), dtype=np.uint8))
        for name, data in [("p.jpg", encoded(photo, "JPEG")), ("p.webp", encoded(photo, "WEBP")),
                           ("p.gif", encoded(photo, "GIF")), ("p.bmp", encoded(photo, "BMP")),
                           ("p.png", encoded(photo.convert("RGBA"), "PNG"))]:
            with self.subTest(name):
                doc = json_line(self, vlm(write(self, name, data), "--json"))
                self.assertEqual(len(doc["outputs"]), 1)

    def test_npy_files_still_read_as_arrays(self):
        # A .npy given for the media input is an array (its bytes), not a file to decode.
        path = os.path.join(temp_dir(self), "red.npy")
        np.save(path, np.frombuffer(encoded(Image.new("RGB", (1, 1), (255, 0, 0)), "PNG"), np.uint8))
        json_line(self, vlm(path, "--json"))


def png_chunk(tag, payload):
    return struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", zlib.crc32(tag + payload) & 0xffffffff)


class HostileImages(unittest.TestCase):
    def refused(self, name, data, *needles):
        r = vlm(write(self, name, data))
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("request.image", r.stderr)
        for needle in needles:
            self.assertIn(needle, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def test_truncated_png(self):
        png = encoded(Image.new("RGB", (50, 40), (10, 200, 30)), "PNG")
        self.refused("cut.png", png[: len(png) // 2], "PNG")

    def test_corrupt_jpeg(self):
        jpg = bytearray(encoded(Image.fromarray(np.full((64, 64, 3), 90, np.uint8)), "JPEG"))
        for i in range(len(jpg) // 2, len(jpg) - 4):
            jpg[i] = 0xFF if i % 2 else 0xD9
        self.refused("bad.jpg", bytes(jpg), "JPEG")

    def test_decompression_bomb_header(self):
        bomb = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)) +
                png_chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + png_chunk(b"IEND", b""))
        r = self.refused("bomb.png", bomb, "60000x60000", "limit")
        self.assertLess(len(r.stderr), 2000)

    def test_wrong_type(self):
        self.refused("notes.png", b"this is a text file, not an image\n", "not an image")

    def test_missing_file(self):
        r = vlm("/nonexistent/image.png")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("/nonexistent/image.png", r.stderr)


if __name__ == "__main__":
    unittest.main()
