"""Image-output test packages built from the diffusion conformance fixture (../shared), shared by
the CLI, server and API tests. The fixture's synthetic VAE returns the first three latent channels
(about -4275, far outside its declared value_range negative_one_to_one: the reference refuses to
encode it). `in_range_diffusion` writes, into a temporary folder, the same package with a VAE
that ends in Sin (so every pixel lies in [-1, 1] and neighbouring pixels differ) and copies the
other components of the shared fixture unchanged. Nothing is copied into the repository.
Run as a script (`image_package.py DEST`) it writes that package to DEST.
"""
import json
import os
import shutil
import sys

SHARED = os.environ.get("OGAI_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
DIFFUSION = os.path.join(SHARED, "conformance", "metadata", "fixtures", "diffusion")


def noise(batch=1, scale=16.0):
    """The reference test's noise, (i - 32) / 16 over [batch, 4, 4, 4] (rows shifted by 0.5 each)."""
    return [[[[(c * 16 + h * 4 + w - 32) / scale + 0.5 * b for w in range(4)] for h in range(4)] for c in range(4)]
            for b in range(batch)]


def in_range_diffusion(dest):
    """The diffusion package at `dest` with image = Sin(first three latent channels)."""
    # Copied (ogai refuses artifacts that resolve outside the package, symlinks included).
    shutil.copytree(DIFFUSION, dest, ignore=shutil.ignore_patterns("vae_decoder"), dirs_exist_ok=True)
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
    os.makedirs(os.path.join(dest, "vae_decoder"), exist_ok=True)
    with open(os.path.join(DIFFUSION, "vae_decoder", "model.onnx.textproto")) as f:
        text = f.read()
    # Edited as text: the fixture's node metadata_props are newer than Debian's onnx protobufs.
    if text.count('output: "image"\n') != 1 or text.count('  name: "vae_decoder"\n') != 1:
        raise AssertionError("the diffusion fixture's VAE is not the one this helper edits")
    text = text.replace('output: "image"\n', 'output: "image_raw"\n')
    sin = '  node {\n    input: "image_raw"\n    output: "image"\n    name: "Sin_in_range"\n    op_type: "Sin"\n  }\n'
    text = text.replace('  name: "vae_decoder"\n', sin + '  name: "vae_decoder"\n')
    with open(os.path.join(dest, "vae_decoder", "model.onnx.textproto"), "w") as f:
        f.write(text)
    open(os.path.join(dest, "vae_decoder", "model.onnx.data"), "wb").close()
    return dest


def expected_pixels(image):
    """uint8 [B, H, W, 3] for an NCHW float image in [-1, 1]: round((v + 1) / 2 * 255), computed in
    float32 with ties away from zero, as the reference runtime quantizes."""
    import numpy as np

    v = np.asarray(image, np.float32)
    n = np.clip((v + np.float32(1)) * np.float32(0.5), 0, 1) * np.float32(255)
    return np.floor(n + np.float32(0.5)).astype(np.uint8).transpose(0, 2, 3, 1)


if __name__ == "__main__":
    in_range_diffusion(sys.argv[1])
    print(json.dumps({"package": sys.argv[1]}))
