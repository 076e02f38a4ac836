"""Installs ogai into a temporary prefix and builds against the installed copy only.

- the layout: headers, libogai.so with its soname and ONNX Runtime RUNPATH, libogai.a, bin/ogai,
  the CMake package and ogai.pc, none of which names the source or build tree;
- libogai.so exports only the public API (C functions ogai_*, C++ symbols of the public classes);
- a CMake project (tests/install/consumer, copied out of the tree) with find_package(ogai CONFIG)
  and a C program built through pkg-config, both run on stories260k: their greedy output equals
  the installed `ogai generate --json` for the same prompt;
- the Python package (when the build has it): imported by Debian's /usr/bin/python3 from
  <prefix>/lib/python3/dist-packages only, its greedy result equals the installed CLI's.
Usage: install_test.py (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
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

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_TOKENS = "24"


def check_run(*args, env=None, cwd=None):
    """Runs a command; fails with its output when it exits non-zero."""
    r = subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def project_version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(ogai VERSION (\d+\.\d+\.\d+)", f.read()).group(1)


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ogai-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        check_run("cmake", "--install", BINARY, "--prefix", cls.prefix)
        cls.lib = os.path.join(cls.prefix, "lib")
        cls.version = project_version()
        reference = check_run(os.path.join(cls.prefix, "bin", "ogai"), "generate", STORIES, "--prompt", STORIES_PROMPT,
                              "--max-new-tokens", NEW_TOKENS, "--temperature", "0", "--json")
        cls.reference = json.loads(reference)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def expected_head(self):
        r = self.reference
        return f"version {self.version}\nids {' '.join(map(str, r['ids']))}\nfinish {r['finish_reason']}\n"

    def test_layout(self):
        for path in ["include/ogai/ogai.h", "include/ogai/ogai_c.h", "include/ogai/engine.h", "include/ogai/export.h",
                     "include/ogai/version.h", "lib/libogai.a", "bin/ogai", "lib/cmake/ogai/ogaiConfig.cmake",
                     "lib/cmake/ogai/ogaiConfigVersion.cmake", "lib/pkgconfig/ogai.pc",
                     "lib/pkgconfig/ogai-cxx.pc", "lib/ogai/libonnxruntime.so.1", "share/doc/ogai/LICENSE",
                     "share/doc/ogai/NOTICE"]:
            self.assertTrue(os.path.isfile(os.path.join(self.prefix, path)), path)
        self.assertFalse(os.path.exists(os.path.join(self.prefix, "include", "ogai", "version.h.in")))
        major, minor, _ = self.version.split(".")
        self.assertEqual(os.path.realpath(os.path.join(self.lib, "libogai.so")),
                         os.path.join(self.lib, f"libogai.so.{self.version}"))
        dynamic = check_run("readelf", "-d", os.path.join(self.lib, "libogai.so"))
        self.assertIn(f"Library soname: [libogai.so.{major}.{minor}]", dynamic)
        self.assertRegex(dynamic, r"\(RUNPATH\).*onnxruntime")
        with open(os.path.join(self.prefix, "include", "ogai", "version.h"), encoding="utf-8") as f:
            self.assertIn(f'#define OGAI_VERSION_STRING "{self.version}"', f.read())

    def test_license_and_notice_are_the_repository_files(self):
        for name in ["LICENSE", "NOTICE"]:
            with open(os.path.join(self.prefix, "share", "doc", "ogai", name), "rb") as f, \
                 open(os.path.join(SOURCE, name), "rb") as g:
                self.assertEqual(f.read(), g.read(), name)

    def test_binaries_load_the_installed_onnxruntime(self):
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        bundled = os.path.join(self.lib, "ogai", "libonnxruntime.so.1")
        for binary in [os.path.join(self.prefix, "bin", "ogai"), os.path.join(self.lib, "libogai.so")]:
            found = re.search(r"libonnxruntime\.so\.1 => (\S+)", check_run("ldd", binary, env=env))
            self.assertTrue(found, binary)
            self.assertEqual(os.path.realpath(found.group(1)), os.path.realpath(bundled), binary)

    def test_installed_files_do_not_name_the_trees(self):
        for folder in ["lib/cmake/ogai", "lib/pkgconfig"]:
            for name in os.listdir(os.path.join(self.prefix, folder)):
                with open(os.path.join(self.prefix, folder, name), encoding="utf-8") as f:
                    text = f.read()
                self.assertNotIn(SOURCE, text, name)
                self.assertNotIn(BINARY, text, name)

    def test_exports_only_the_public_api(self):
        out = check_run("nm", "-D", "--defined-only", "-C", os.path.join(self.lib, "libogai.so"))
        names = [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]
        public = re.compile(r"^(ogai_[a-z_]+|(typeinfo|typeinfo name|vtable) for ogai::Error|"
                            r"ogai::(Model|Context|Engine|GenerationHandle|Error|error_code_name|finish_reason_name|onnxruntime_version|validate|Workflow|TensorValue|WorkflowOutputs|ChatReplyParser|parse_chat_reply|tool_call_format_name|parse_tool_call_format)\b.*)$")
        self.assertEqual([n for n in names if not public.match(n)], [])
        self.assertEqual([n for n in names if "::Impl" in n or "::State" in n], [])
        for symbol in ["ogai_model_load", "ogai_generate", "ogai_engine_submit", "ogai::Model::load(", "ogai::Workflow::run("]:
            self.assertTrue(any(n.startswith(symbol) for n in names), symbol)

    def test_cmake_consumer_matches_ogai_generate(self):
        project = os.path.join(self.tmp, "consumer")
        shutil.copytree(os.path.join(HERE, "consumer"), project)
        build = os.path.join(project, "build")
        check_run("cmake", "-S", project, "-B", build, f"-DCMAKE_PREFIX_PATH={self.prefix}",
                  "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF", "-DCMAKE_BUILD_TYPE=Release")
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
            self.assertIn(f"ogai_DIR:PATH={self.prefix}/lib/cmake/ogai", f.read())
        check_run("cmake", "--build", build)
        out = check_run(os.path.join(build, "consumer"), STORIES, STORIES_PROMPT, NEW_TOKENS)
        self.assertEqual(out, self.expected_head() + "text " + self.reference["text"])

    def test_cxx_consumer_through_pkg_config_needs_no_other_flags(self):
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.lib, "pkgconfig"))
        flags = check_run("pkg-config", "--cflags", "--libs", "ogai-cxx", env=env).split()
        self.assertIn("-std=c++20", flags)
        exe = os.path.join(self.tmp, "cxx_consumer")
        check_run("c++", os.path.join(HERE, "consumer", "consumer.cc"), *flags, f"-Wl,-rpath,{self.lib}", "-o", exe)
        out = check_run(exe, STORIES, STORIES_PROMPT, NEW_TOKENS)
        self.assertEqual(out, self.expected_head() + "text " + self.reference["text"])

    def build_c_consumer(self, name, static):
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.lib, "pkgconfig"))
        flags = ["--static"] if static else []
        cflags = check_run("pkg-config", "--cflags", "ogai", env=env).split()
        libs = check_run("pkg-config", *flags, "--libs", "ogai", env=env).split()
        exe = os.path.join(self.tmp, name)
        if static:  # the archive itself, then what it needs (Libs.private), linked as C++
            obj = exe + ".o"
            check_run("cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *cflags, "-c", os.path.join(HERE, "c_consumer.c"),
                      "-o", obj)
            rest = [f for f in libs if f not in ("-logai",)]
            check_run("c++", obj, os.path.join(self.lib, "libogai.a"), *rest, "-o", exe)
        else:
            check_run("cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *cflags, os.path.join(HERE, "c_consumer.c"),
                      *libs, f"-Wl,-rpath,{self.lib}", "-o", exe)
        return exe

    def check_c_consumer(self, exe):
        out = check_run(exe, STORIES, STORIES_PROMPT, NEW_TOKENS)
        text = self.reference["text"]
        head = self.expected_head().replace("\n", "\nvalid 1\n", 1)  # the C consumer validates first
        self.assertEqual(out, head + f"streamed {text}\nengine {text}\ntext {text}")

    def test_c_consumer_through_pkg_config_matches_ogai_generate(self):
        self.check_c_consumer(self.build_c_consumer("c_consumer", static=False))

    def test_c_consumer_linked_statically(self):
        exe = self.build_c_consumer("c_consumer_static", static=True)
        self.assertNotIn("libogai", check_run("readelf", "-d", exe))
        self.check_c_consumer(exe)

    def test_python_package_imports_from_the_prefix(self):
        if not os.path.isdir(os.path.join(BINARY, "python", "ogai")):
            self.skipTest("the build has no Python package (pybind11 not found)")
        site = os.path.join(self.prefix, "lib", "python3", "dist-packages")
        for name in ["__init__.py", "errors.py"]:
            self.assertTrue(os.path.isfile(os.path.join(site, "ogai", name)), name)
        extension = [n for n in os.listdir(os.path.join(site, "ogai")) if n.startswith("_ogai") and n.endswith(".so")]
        self.assertEqual(len(extension), 1, os.listdir(os.path.join(site, "ogai")))
        dynamic = check_run("readelf", "-d", os.path.join(site, "ogai", extension[0]))
        self.assertIn("$ORIGIN/../../..", dynamic)
        self.assertNotIn(BINARY, dynamic)
        script = ("import json, ogai, sys; m = ogai.Model(sys.argv[1]); "
                  "r = m.generate(sys.argv[2], max_new_tokens=int(sys.argv[3]), temperature=0); "
                  "print(json.dumps({'file': ogai.__file__, 'version': ogai.__version__, 'ids': r.token_ids, "
                  "'text': r.text}))")
        env = dict(os.environ, PYTHONPATH=site)
        out = json.loads(check_run("/usr/bin/python3", "-c", script, STORIES, STORIES_PROMPT, NEW_TOKENS, env=env,
                                   cwd=self.tmp))
        self.assertTrue(out["file"].startswith(site), out["file"])
        self.assertEqual(out["version"], self.version)
        self.assertEqual(out["ids"], self.reference["ids"])
        self.assertEqual(out["text"], self.reference["text"])


if __name__ == "__main__":
    unittest.main()
