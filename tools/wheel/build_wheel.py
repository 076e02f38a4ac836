#!/usr/bin/python3
"""Builds the Python package's wheel from a build tree: scripts/build_wheel.sh calls it.

    build_wheel.py BUILD_DIR OUT_DIR   -> prints the wheel's path

The wheel holds build/python/ogai/ (the .py files and the _ogai extension), libogai.so and the
ONNX Runtime library the build used, side by side, and the repository's LICENSE and NOTICE (the
third-party libraries) in its .dist-info folder: the extension's and libogai's RUNPATHs end with
$ORIGIN, so they find each other there. It is tagged for the interpreter the extension was built
for (cpXY-cpXY-linux_<arch>); its other shared libraries are Debian's (yaml-cpp, protobuf, fmt,
PCRE2, utf8proc, ICU: the packages scripts/install_deps.sh installs). Written with the standard
library only (zipfile + the RECORD's sha256), so no setuptools or network is needed.
"""
import base64
import glob
import hashlib
import os
import re
import sys
import sysconfig
import zipfile


def cache_value(build_dir, key):
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(rf"{re.escape(key)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    raise SystemExit(f"build_wheel: {key} is not in {build_dir}/CMakeCache.txt (configure the build first)")


def one(pattern, what):
    found = sorted(glob.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"build_wheel: expected one {what} ({pattern}), found {found or 'none'}")
    return found[0]


def project_version(build_dir):
    with open(os.path.join(build_dir, "include", "ogai", "version.h"), encoding="utf-8") as f:
        m = re.search(r'#define OGAI_VERSION_STRING "([^"]+)"', f.read())
    if not m:
        raise SystemExit("build_wheel: no OGAI_VERSION_STRING in the build's include/ogai/version.h")
    return m.group(1)


def files_of(build_dir):
    """(archive name, source path) of every file the wheel ships."""
    package = os.path.join(build_dir, "python", "ogai")
    ext = one(os.path.join(package, "_ogai*.so"), "built extension (is pybind11-dev installed?)")
    version = project_version(build_dir)
    major, minor = version.split(".")[:2]
    libogai = one(os.path.join(build_dir, f"libogai.so.{version}"), "libogai.so")
    ort = os.path.realpath(cache_value(build_dir, "ONNXRUNTIME_LIBRARY"))  # its SONAME: libonnxruntime.so.1
    files = glob.glob(os.path.join(package, "*.py*")) + glob.glob(os.path.join(package, "py.typed"))
    out = [(f"ogai/{os.path.basename(p)}", p) for p in sorted(files)]
    out += [(f"ogai/{os.path.basename(ext)}", ext), (f"ogai/libogai.so.{major}.{minor}", libogai),
            ("ogai/libonnxruntime.so.1", ort)]
    return version, ext, out


def tag_of(ext):
    m = re.search(r"cpython-(\d)(\d+)", os.path.basename(ext))
    py = f"cp{m.group(1)}{m.group(2)}" if m else f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{py}-{py}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: build_wheel.py BUILD_DIR OUT_DIR")
    build_dir, out_dir = sys.argv[1], sys.argv[2]
    version, ext, files = files_of(build_dir)
    tag = tag_of(ext)
    info = f"ogai-{version}.dist-info"
    meta = {
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: ogai\nVersion: {v}\nSummary: Run onnx-genai model "
                            "packages (inference_metadata.yaml) on ONNX Runtime\nRequires-Python: >=3.9\n"
                            "License: MIT\n".format(v=version),
        f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: ogai build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n",
        f"{info}/top_level.txt": "ogai\n",
    }
    source_dir = cache_value(build_dir, "ogai_SOURCE_DIR")
    files += [(f"{info}/{name}", os.path.join(source_dir, name)) for name in ("LICENSE", "NOTICE")]
    os.makedirs(out_dir, exist_ok=True)
    wheel = os.path.join(out_dir, f"ogai-{version}-{tag}.whl")
    record = []
    with zipfile.ZipFile(wheel + ".part", "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in files:
            with open(path, "rb") as f:
                data = f.read()
            info_z = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info_z.external_attr = (0o755 if name.endswith(".so") or ".so." in name else 0o644) << 16
            info_z.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info_z, data)
            record.append(f"{name},{digest(data)},{len(data)}")
        for name, text in meta.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), text)
            record.append(f"{name},{digest(text.encode())},{len(text.encode())}")
        record.append(f"{info}/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    os.replace(wheel + ".part", wheel)
    print(wheel)


if __name__ == "__main__":
    main()
