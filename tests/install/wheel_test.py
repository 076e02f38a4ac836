"""The Python wheel (issue 26 item 8): tools/wheel/build_wheel.py makes it from this build, `pip
install` puts it into a fresh venv of Debian's python3 (offline: --no-index), and the installed
package, imported from outside the source and build trees with no PYTHONPATH, loads its own
libogai and ONNX Runtime (the copies inside the wheel) and generates what the CLI generates.
Usage: wheel_test.py OGAI_EXE (OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

OGAI = sys.argv.pop(1)
SOURCE = os.environ["OGAI_SOURCE_DIR"]
BINARY = os.environ["OGAI_BINARY_DIR"]
STORIES = os.path.join(BINARY, "packages", "stories260k")

PROBE = r"""
import json, ogai
model = ogai.Model(PKG)
r = model.generate("Once upon a time", max_new_tokens=12, temperature=0)
maps = open("/proc/self/maps").read()
libs = sorted({line.split()[-1] for line in maps.splitlines() if "libogai" in line or "libonnxruntime" in line})
print(json.dumps({"ids": list(r.token_ids), "file": ogai.__file__, "libs": libs}))
"""


class WheelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ogai_wheel_")
        out = subprocess.run(["/usr/bin/python3", os.path.join(SOURCE, "tools", "wheel", "build_wheel.py"), BINARY,
                              os.path.join(cls.tmp, "dist")], capture_output=True, text=True, check=True)
        cls.wheel = out.stdout.strip()
        cls.venv = os.path.join(cls.tmp, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", cls.venv], check=True, capture_output=True)
        pip = subprocess.run([os.path.join(cls.venv, "bin", "pip"), "install", "--no-index", "--no-deps", cls.wheel],
                             capture_output=True, text=True)
        if pip.returncode != 0:
            raise AssertionError(pip.stdout + pip.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_the_wheel_is_well_formed(self):
        with zipfile.ZipFile(self.wheel) as z:
            names = z.namelist()
            record = [n for n in names if n.endswith(".dist-info/RECORD")]
            self.assertEqual(len(record), 1)
            listed = {line.split(",")[0] for line in z.read(record[0]).decode().splitlines()}
            self.assertEqual(listed, set(names))
            self.assertIn("ogai/__init__.py", names)
            self.assertTrue(any(n.startswith("ogai/_ogai") and n.endswith(".so") for n in names))
            self.assertTrue(any(n.startswith("ogai/libogai.so.") for n in names))
            self.assertIn("ogai/libonnxruntime.so.1", names)
            metadata = [n for n in names if n.endswith(".dist-info/METADATA")][0]
            self.assertIn("License: MIT", z.read(metadata).decode())
        self.assertRegex(os.path.basename(self.wheel), r"^ogai-[\d.]+-cp3\d+-cp3\d+-linux_\w+\.whl$")

    def test_installed_package_carries_license_and_notice(self):
        found = glob.glob(os.path.join(self.venv, "lib", "python3*", "site-packages", "ogai-*.dist-info"))
        self.assertEqual(len(found), 1, found)
        for name in ["LICENSE", "NOTICE"]:
            with open(os.path.join(found[0], name), "rb") as f, open(os.path.join(SOURCE, name), "rb") as g:
                self.assertEqual(f.read(), g.read(), name)

    def test_installed_package_generates_as_the_cli(self):
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
        probe = subprocess.run([os.path.join(self.venv, "bin", "python"), "-c", PROBE.replace("PKG", repr(STORIES))],
                               capture_output=True, text=True, cwd=self.tmp, env=env)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        got = json.loads(probe.stdout)
        self.assertTrue(got["file"].startswith(self.venv), got["file"])
        self.assertTrue(got["libs"], got)
        for lib in got["libs"]:
            self.assertTrue(lib.startswith(os.path.realpath(self.venv)) or lib.startswith(self.venv), got["libs"])
        cli = subprocess.run([OGAI, "generate", STORIES, "--prompt", "Once upon a time", "--max-new-tokens", "12",
                              "--temperature", "0", "--json"], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(got["ids"], json.loads(cli.stdout)["ids"])


if __name__ == "__main__":
    unittest.main()
