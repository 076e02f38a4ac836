"""Issue 37 item 6: `quantize` and `import --out` never destroy what ogai did not write, and an
interrupted run leaves the old output or the new one, never half, and no temporary behind.

    /usr/bin/python3 never_destroy_test.py OGAI   (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set)

Before the fix `quantize SRC DST --force` deleted whatever DST was (a directory of unrelated
files, a device node), and SIGTERMed runs left `.DST.quantize-PID` folders behind. Here: refusals
naming what is there (unrelated files, a FIFO, a device, a symbolic link, a foreign file for
--out); an empty directory and a bare relative DST accepted; runs killed with SIGKILL and SIGTERM
at several moments, after each of which DST is exactly the old package or the new one; SIGTERM
leaves no temporary, and the next run removes what a SIGKILLed one left (only ogai's own).
"""
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cli_support import SHARED, SOURCE, run, temp_dir

OGAI = os.path.abspath(sys.argv.pop(1))
LONG = os.environ.get("OGAI_LONG_TESTS") == "1"
RNG = np.random.default_rng(37)


def matmul_package(folder, k, n):
    """A package of one MatMul [k x n] with external weights, and an unrelated notes file."""
    os.makedirs(folder)
    w = (RNG.standard_normal((k, n)) * 0.1).astype(np.float32)
    g = helper.make_graph([helper.make_node("MatMul", ["a", "w"], ["y"], name="proj")], "g",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["m", k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["m", n])], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save_model(model, os.path.join(folder, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    with open(os.path.join(folder, "notes.txt"), "w") as f:
        f.write("notes\n")
    return folder


def tree_digest(folder):
    """{relative path: sha256} of every file under `folder`."""
    out = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def temporaries(parent):
    """Hidden entries beside DST: a temporary of any name (`.dst.quantize-PID` before issue 37)."""
    return sorted(n for n in os.listdir(parent) if n.startswith("."))


class Quantize(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = os.path.join(os.environ["OGAI_BINARY_DIR"], "never_destroy_quantize")
        shutil.rmtree(cls.work, ignore_errors=True)
        os.makedirs(cls.work)
        cls.small = matmul_package(os.path.join(cls.work, "small"), 64, 64)
        size = 4096 if LONG else 3072
        cls.big = matmul_package(os.path.join(cls.work, "big"), size, size)

    def quantize(self, src, dst, *flags, expect=0, cwd=None):
        p = subprocess.run([OGAI, "quantize", src, dst, *flags], capture_output=True, text=True, timeout=300, cwd=cwd)
        self.assertEqual(p.returncode, expect, p.stderr)
        return p

    def test_refuses_what_ogai_did_not_write(self):
        parent = temp_dir(self)
        dst = os.path.join(parent, "dst")
        os.makedirs(os.path.join(dst, "sub"))
        with open(os.path.join(dst, "thesis.tex"), "w") as f:
            f.write("precious\n")
        before = tree_digest(dst)
        p = self.quantize(self.small, dst, "--force", expect=1)
        self.assertIn("is a directory holding 2 entries that ogai did not write (sub, thesis.tex)", p.stderr)
        self.assertEqual(tree_digest(dst), before)
        fifo = os.path.join(parent, "fifo")
        os.mkfifo(fifo)
        p = self.quantize(self.small, fifo, "--force", expect=1)
        self.assertIn("is a FIFO (named pipe), not a package directory", p.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        link = os.path.join(parent, "link")
        os.symlink(self.small, link)
        p = self.quantize(self.small, link, "--force", expect=1)
        self.assertIn("is a symbolic link", p.stderr)
        file = os.path.join(parent, "file")
        with open(file, "w") as f:
            f.write("keep\n")
        p = self.quantize(self.small, file, "--force", expect=1)
        self.assertIn("is a regular file, not a package directory", p.stderr)
        self.assertEqual(read_text(file), "keep\n")
        if os.geteuid() == 0:  # a character device (the issue's: replaced by a package directory)
            dev = os.path.join(parent, "null")
            os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 3))
            p = self.quantize(self.small, dev, "--force", expect=1)
            self.assertIn("is a character device, not a package directory", p.stderr)
            self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))
        self.assertEqual(temporaries(parent), [])

    def test_replaces_its_own_package_and_empty_directories(self):
        parent = temp_dir(self)
        dst = os.path.join(parent, "dst")
        os.makedirs(dst)
        self.quantize(self.small, dst)  # an empty directory: no --force needed
        self.assertIn(".ogai-package", os.listdir(dst))
        p = self.quantize(self.small, dst, expect=1)
        self.assertIn("exists (pass --force to replace it): a package ogai wrote", p.stderr)
        self.quantize(self.small, dst, "--force", "--block-size", "32")
        self.assertEqual(temporaries(parent), [])
        self.quantize(self.small, "rel_q4", cwd=parent)  # a bare relative DST
        self.assertIn("model.onnx", os.listdir(os.path.join(parent, "rel_q4")))
        self.assertEqual(temporaries(parent), [])

    def test_killed_runs_leave_old_or_new(self):
        parent = temp_dir(self)
        dst = os.path.join(parent, "dst")
        self.quantize(self.big, dst, "--block-size", "128")
        old = tree_digest(dst)
        new_dir = os.path.join(parent, "reference")
        self.quantize(self.big, new_dir, "--block-size", "32")
        new = tree_digest(new_dir)
        self.assertNotEqual(old, new)
        start = time.monotonic()
        self.quantize(self.big, os.path.join(parent, "timing"), "--block-size", "32")
        took = time.monotonic() - start
        shutil.rmtree(os.path.join(parent, "timing"))
        # A foreign folder named like a temporary, of a process that is gone: never touched.
        foreign = os.path.join(parent, ".dst.ogai-tmp-99999999")
        os.makedirs(foreign)
        with open(os.path.join(foreign, "mine.txt"), "w") as f:
            f.write("not ogai's\n")
        points = 12 if LONG else 6
        seen = {"old": 0, "new": 0}
        for sig in (signal.SIGKILL, signal.SIGTERM):
            for i in range(points):
                proc = subprocess.Popen([OGAI, "quantize", self.big, dst, "--force", "--block-size", "32"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1.2 * took * (i + 0.5) / points)  # the last tries land after the rename
                proc.send_signal(sig)
                proc.wait(timeout=60)
                got = tree_digest(dst)
                self.assertIn(got, (old, new), f"{sig.name} at {i}/{points}: DST is neither the old nor the new package")
                seen["old" if got == old else "new"] += 1
                if sig == signal.SIGTERM:
                    self.assertEqual(temporaries(parent), [".dst.ogai-tmp-99999999"],
                                     f"SIGTERM at {i}/{points} left a temporary")
                if got == new:  # back to the old package for the next try
                    self.quantize(self.big, dst, "--force", "--block-size", "128")
                    self.assertEqual(tree_digest(dst), old)
            if sig == signal.SIGKILL:  # the next run removes what they left (its own temporaries only)
                self.quantize(self.big, dst, "--force", "--block-size", "32")
                self.assertEqual(tree_digest(dst), new)
                self.assertEqual(temporaries(parent), [".dst.ogai-tmp-99999999"])
                self.assertEqual(os.listdir(foreign), ["mine.txt"])
                self.quantize(self.big, dst, "--force", "--block-size", "128")
        self.assertGreater(seen["old"], 0, seen)
        print(f"killed quantize runs (one run {took:.2f} s): DST old {seen['old']}, new {seen['new']}", file=sys.stderr)


class Import(unittest.TestCase):
    def folder(self):
        d = os.path.join(temp_dir(self), "stories-genai")
        os.makedirs(d)
        for src in (os.path.join(SHARED, "models", "stories260k", "model.onnx"),
                    os.path.join(SHARED, "models", "stories260k", "tokenizer.json"),
                    os.path.join(SOURCE, "tests", "data", "genai", "stories260k", "genai_config.json")):
            shutil.copyfile(src, os.path.join(d, os.path.basename(src)))  # the graph must lie inside
        return d

    def test_out_refusals_and_replacement(self):
        folder = self.folder()
        parent = temp_dir(self)
        out = os.path.join(parent, "inference_metadata.yaml")
        with open(out, "w") as f:
            f.write("model: mine\n")
        p = run(OGAI, "import", folder, "--out", out)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("exists and ogai did not write it", p.stderr)
        self.assertEqual(read_text(out), "model: mine\n")
        os.remove(out)
        p = run(OGAI, "import", folder, "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = read_text(out)
        with open(out, "a") as f:
            f.write("# edited\n")
        p = run(OGAI, "import", folder, "--out", out)  # its own document: replaced
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(read_text(out), doc)
        p = run(OGAI, "import", folder, "--out", parent)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("is a directory, not a file ogai wrote", p.stderr)
        rel = subprocess.run([OGAI, "import", folder, "--out", "rel.yaml"], capture_output=True, text=True, cwd=parent)
        self.assertEqual(rel.returncode, 0, rel.stderr)
        self.assertEqual(read_text(os.path.join(parent, "rel.yaml")), doc)
        self.assertEqual(temporaries(parent), [])

    def test_killed_imports_leave_old_or_new(self):
        folder = self.folder()
        parent = temp_dir(self)
        out = os.path.join(parent, "meta.yaml")
        self.assertEqual(run(OGAI, "import", folder, "--out", out).returncode, 0)
        new = read_text(out)
        old = new + "# the old one\n"
        start = time.monotonic()
        run(OGAI, "import", folder, "--out", os.path.join(parent, "timing.yaml"))
        took = time.monotonic() - start
        os.remove(os.path.join(parent, "timing.yaml"))
        points = 12 if LONG else 6
        for sig in (signal.SIGKILL, signal.SIGTERM):
            for i in range(points):
                with open(out, "w") as f:
                    f.write(old)
                proc = subprocess.Popen([OGAI, "import", folder, "--out", out],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(took * (i + 0.5) / points)
                proc.send_signal(sig)
                proc.wait(timeout=60)
                self.assertIn(read_text(out), (old, new), f"{sig.name} at {i}/{points}")
                if sig == signal.SIGTERM:
                    self.assertEqual(temporaries(parent), [], f"SIGTERM at {i}/{points} left a temporary")
            # The next run removes what SIGKILLed runs left.
            self.assertEqual(run(OGAI, "import", folder, "--out", out).returncode, 0)
            self.assertEqual(read_text(out), new)
            self.assertEqual(temporaries(parent), [])


if __name__ == "__main__":
    unittest.main()
