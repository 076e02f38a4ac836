"""The licence files (issue 38 item 2): LICENSE is the MIT licence of "the ogai authors", and NOTICE
names every third-party shared object the built binaries load.

- LICENSE: the MIT text with the copyright line "Copyright (c) the ogai authors";
- NOTICE: each entry has a licence and a copyright line; every DT_NEEDED library of `ogai`,
  libogai.so and the Python extension (when built), except the C/C++ runtime and ogai's own,
  appears (without its version suffix) in a "links:" line, so a library added to the link line
  without a NOTICE entry fails here.
Usage: notice_test.py OGAI_EXE LIBOGAI_SO (OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import glob
import os
import re
import subprocess
import sys
import unittest

OGAI, LIBOGAI = sys.argv.pop(1), sys.argv.pop(1)
SOURCE = os.environ["OGAI_SOURCE_DIR"]
BINARY = os.environ["OGAI_BINARY_DIR"]
SYSTEM = {"libc", "libm", "libstdc++", "libgcc_s", "libpthread", "libdl", "librt", "ld-linux-x86-64",
          "ld-linux-aarch64", "libogai"}


def read(name):
    with open(os.path.join(SOURCE, name), encoding="utf-8") as f:
        return f.read()


def needed(path):
    """The DT_NEEDED sonames of a binary, without '.so...'."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return {re.sub(r"\.so(\.[\d.]+)?$", "", m) for m in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)}


def notice_entries(text):
    """{title: {field: value}} of the third-party entries (a title line, then indented fields)."""
    entries, title = {}, None
    for line in text.split("Third-party software", 1)[1].splitlines():
        field = re.match(r"^  ([a-z]+):\s+(.*)$", line)
        if field and title:
            entries[title][field.group(1)] = field.group(2)
        elif line and not line.startswith(" ") and not line.startswith("="):
            title = line
            entries[title] = {}
    return entries


class NoticeTest(unittest.TestCase):
    def test_license_is_mit_of_the_ogai_authors(self):
        text = read("LICENSE")
        self.assertTrue(text.startswith("MIT License\n"), text[:40])
        self.assertIn("Copyright (c) the ogai authors\n", text)
        self.assertIn("Permission is hereby granted, free of charge", text)
        self.assertIn('THE SOFTWARE IS PROVIDED "AS IS"', text)

    def test_notice_entries_have_a_licence_and_a_copyright(self):
        entries = {t: e for t, e in notice_entries(read("NOTICE")).items() if "licence" in e}
        self.assertGreaterEqual(len(entries), 10, list(entries))
        for title, fields in entries.items():
            if not title.startswith("GCC runtime"):
                self.assertTrue(fields.get("copyright"), title)

    def test_every_loaded_library_is_in_the_notice(self):
        linked = set()
        for entry in notice_entries(read("NOTICE")).values():
            linked.update(entry.get("links", "").split())
        binaries = [OGAI, LIBOGAI] + glob.glob(os.path.join(BINARY, "python", "ogai", "_ogai*.so"))
        for binary in binaries:
            missing = sorted(needed(binary) - SYSTEM - linked)
            self.assertEqual(missing, [], f"{binary} loads libraries NOTICE does not name")
        self.assertIn("libonnxruntime", needed(OGAI))  # the check reads real link lines


if __name__ == "__main__":
    unittest.main()
