"""The Debian package (issue 38 item 1): `cpack -G DEB` with this build's CPackConfig.cmake
(cmake/Deb.cmake) makes ogai_<version>_<arch>.deb; the test reads its control fields and file list,
extracts it into a temporary root (dpkg-deb -x, nothing is installed on the machine) and checks:
- the control fields: package ogai, the project's version, a Depends line from dpkg-shlibdeps that
  names the Debian libraries the binaries load;
- the files under /usr: bin/ogai, libogai (shared + static), the headers, the CMake package, the
  pkg-config files, ONNX Runtime in lib/ogai, LICENSE and NOTICE in share/doc/ogai; no path of the
  source or build tree in the CMake and pkg-config files;
- the extracted `ogai` and libogai.so load the ONNX Runtime of the package (not the build's), and
  a C program built through the package's pkg-config file generates what the package's `ogai`
  generates for the same greedy prompt.
Usage: deb_test.py (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ["OGAI_SOURCE_DIR"], "tests", "e2e"))
from cli_support import BINARY, SOURCE, STORIES, STORIES_PROMPT  # noqa: E402

NEW_TOKENS = "8"


def check_run(*args, env=None):
    r = subprocess.run(list(args), capture_output=True, text=True, env=env, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(ogai VERSION (\d+\.\d+\.\d+)", f.read()).group(1)


class DebTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ogai-deb-")
        check_run("cpack", "-G", "DEB", "--config", os.path.join(BINARY, "CPackConfig.cmake"), "-B", cls.tmp)
        debs = glob.glob(os.path.join(cls.tmp, "*.deb"))
        if len(debs) != 1:
            raise AssertionError(f"expected one .deb in {cls.tmp}, found {debs}")
        cls.deb = debs[0]
        cls.root = os.path.join(cls.tmp, "root")
        check_run("dpkg-deb", "-x", cls.deb, cls.root)
        cls.usr = os.path.join(cls.root, "usr")
        cls.env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_control_fields(self):
        version = project_version()
        arch = check_run("dpkg", "--print-architecture").strip()
        self.assertEqual(os.path.basename(self.deb), f"ogai_{version}_{arch}.deb")
        fields = {name: check_run("dpkg-deb", "-f", self.deb, name).strip()
                  for name in ["Package", "Version", "Architecture", "Depends"]}
        self.assertEqual(fields["Package"], "ogai")
        self.assertEqual(fields["Version"], version)
        self.assertEqual(fields["Architecture"], arch)
        for library in ["libyaml-cpp", "libfmt", "libprotobuf", "libsimdjson", "libicu", "libedit"]:
            self.assertIn(library, fields["Depends"])
        self.assertNotIn("onnxruntime", fields["Depends"])  # shipped inside

    def test_file_list(self):
        # "perms owner size date time path[ -> target]"
        listed = {line.split()[5] for line in check_run("dpkg-deb", "-c", self.deb).splitlines()}
        version = project_version()
        for path in ["./usr/bin/ogai", f"./usr/lib/libogai.so.{version}", "./usr/lib/libogai.a",
                     "./usr/include/ogai/ogai.h", "./usr/include/ogai/ogai_c.h", "./usr/include/ogai/version.h",
                     "./usr/lib/cmake/ogai/ogaiConfig.cmake", "./usr/lib/cmake/ogai/ogaiTargets.cmake",
                     "./usr/lib/pkgconfig/ogai.pc", "./usr/lib/pkgconfig/ogai-cxx.pc",
                     "./usr/lib/ogai/libonnxruntime.so.1", "./usr/share/doc/ogai/LICENSE",
                     "./usr/share/doc/ogai/NOTICE"]:
            self.assertIn(path, listed)
        self.assertEqual([p for p in listed if not p.startswith("./usr")], ["./"] if "./" in listed else [])

    def test_license_and_notice_are_the_repository_files(self):
        for name in ["LICENSE", "NOTICE"]:
            with open(os.path.join(self.usr, "share", "doc", "ogai", name), "rb") as f, \
                 open(os.path.join(SOURCE, name), "rb") as g:
                self.assertEqual(f.read(), g.read(), name)

    def test_packaged_files_do_not_name_the_trees(self):
        for folder in ["lib/cmake/ogai", "lib/pkgconfig"]:
            for name in os.listdir(os.path.join(self.usr, folder)):
                with open(os.path.join(self.usr, folder, name), encoding="utf-8") as f:
                    text = f.read()
                self.assertNotIn(SOURCE, text, name)
                self.assertNotIn(BINARY, text, name)

    def test_binaries_load_the_packaged_onnxruntime(self):
        bundled = os.path.realpath(os.path.join(self.usr, "lib", "ogai", "libonnxruntime.so.1"))
        for binary in [os.path.join(self.usr, "bin", "ogai"), os.path.join(self.usr, "lib", "libogai.so")]:
            found = re.search(r"libonnxruntime\.so\.1 => (\S+)", check_run("ldd", binary, env=self.env))
            self.assertTrue(found, binary)
            self.assertEqual(os.path.realpath(found.group(1)), bundled, binary)

    def test_c_program_built_against_the_package_generates_as_its_ogai(self):
        ogai = os.path.join(self.usr, "bin", "ogai")
        ref = json.loads(check_run(ogai, "generate", STORIES, "--prompt", STORIES_PROMPT, "--max-new-tokens",
                                   NEW_TOKENS, "--temperature", "0", "--json", env=self.env))
        env = dict(self.env, PKG_CONFIG_PATH=os.path.join(self.usr, "lib", "pkgconfig"))
        flags = check_run("pkg-config", "--cflags", "--libs", "ogai", env=env).split()
        includes = [os.path.normpath(f[2:]) for f in flags if f.startswith("-I")]
        self.assertEqual(includes, [os.path.join(self.usr, "include")])  # the package's, relocated
        exe = os.path.join(self.tmp, "c_consumer")
        check_run("cc", "-std=c11", "-Wall", "-Werror", os.path.join(SOURCE, "tests", "install", "c_consumer.c"),
                  *flags, f"-Wl,-rpath,{os.path.join(self.usr, 'lib')}", "-o", exe, env=env)
        out = check_run(exe, STORIES, STORIES_PROMPT, NEW_TOKENS, env=self.env)
        self.assertIn(f"ids {' '.join(map(str, ref['ids']))}\n", out)
        self.assertTrue(out.endswith("text " + ref["text"]), out)


if __name__ == "__main__":
    unittest.main()
