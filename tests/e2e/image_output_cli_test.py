"""End-to-end check of image outputs through `ogai run --output-dir`: the diffusion conformance
fixture's `image` output (float [B, 3, H, W], value_range negative_one_to_one) becomes image.png.
Pillow (Debian's python3-pil) decodes the PNG and NumPy recomputes every pixel from the emitted
tensor in outputs.json. The fixture itself emits values far outside its range: refused naming
the output and the value (the reference's PNG encoder refuses it too), nothing written. An
existing file in the folder is never replaced.
Usage: image_output_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

import numpy as np
from PIL import Image

from cli_support import run, temp_dir
from image_package import DIFFUSION, expected_pixels, in_range_diffusion, noise

OGAI = sys.argv.pop(1)


def args(package, batch=1, steps=2):
    ids = json.dumps([[1, 2]] * batch)
    return ["run", package, "--input", f"request.input_ids={ids}", "--input", f"noise={json.dumps(noise(batch))}",
            "--max-new-tokens", str(steps)]


class ImagePng(unittest.TestCase):
    def setUp(self):
        self.package = in_range_diffusion(os.path.join(temp_dir(self), "diffusion_in_range"))

    def run_ok(self, *extra, batch=1):
        out = os.path.join(temp_dir(self), "out")
        result = run(OGAI, *args(self.package, batch), "--output-dir", out, *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "outputs.json")) as f:
            outputs = json.load(f)["outputs"]
        return out, outputs, result

    def test_image_png_holds_the_emitted_pixels(self):
        out, outputs, result = self.run_ok()
        self.assertIn("image.png", result.stderr)
        image = np.array(outputs["image"]["data"], np.float32).reshape(outputs["image"]["shape"])
        self.assertEqual(image.shape, (1, 3, 4, 4))
        with Image.open(os.path.join(out, "image.png")) as png:
            self.assertEqual((png.format, png.mode, png.size), ("PNG", "RGB", (4, 4)))
            got = np.asarray(png)
        want = expected_pixels(image)[0]
        np.testing.assert_array_equal(got, want)
        self.assertGreater(len(np.unique(got)), 8)  # the pixels differ: not a constant image

    def test_a_batch_writes_one_png_per_row(self):
        out, outputs, _ = self.run_ok(batch=2)
        image = np.array(outputs["image"]["data"], np.float32).reshape(outputs["image"]["shape"])
        self.assertEqual(image.shape[0], 2)
        self.assertFalse(os.path.exists(os.path.join(out, "image.png")))
        want = expected_pixels(image)
        for row in range(2):
            with Image.open(os.path.join(out, f"image.row.{row}.png")) as png:
                np.testing.assert_array_equal(np.asarray(png), want[row])
        self.assertFalse(np.array_equal(want[0], want[1]))

    def test_an_existing_file_is_never_replaced(self):
        out = os.path.join(temp_dir(self), "out")
        os.makedirs(out)
        with open(os.path.join(out, "image.png"), "wb") as f:
            f.write(b"mine")
        result = run(OGAI, *args(self.package), "--output-dir", out)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("image.png", result.stderr)
        self.assertIn("already exists", result.stderr)
        with open(os.path.join(out, "image.png"), "rb") as f:
            self.assertEqual(f.read(), b"mine")
        self.assertEqual(sorted(os.listdir(out)), ["image.png"])  # nothing else written either


class OutOfRange(unittest.TestCase):
    def test_the_fixture_image_is_refused_naming_output_and_value(self):
        out = os.path.join(temp_dir(self), "out")
        result = run(OGAI, *args(DIFFUSION), "--output-dir", out)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("outputs.image", result.stderr)
        self.assertIn("negative_one_to_one", result.stderr)
        self.assertRegex(result.stderr, r"value -4\d\d\d")
        self.assertFalse(os.path.exists(out))

    def test_without_output_dir_the_tensor_still_prints(self):
        result = run(OGAI, *args(DIFFUSION), "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads(result.stdout)["outputs"]["image"]["shape"], [1, 3, 4, 4])


if __name__ == "__main__":
    unittest.main()
