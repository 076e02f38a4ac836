// The setup both image preprocessing benches share (image_preprocess_bench, gemma4_image_bench):
// a generated W x H photograph-like JPEG (smooth colour fields plus noise, quality 90, made by
// Pillow) and a Pillow + NumPy baseline timed on it in a /usr/bin/python3 subprocess, one thread.
// The bench supplies the baseline's pipeline: Python code that defines nothing the prelude needs,
// runs after it (`data` holds the JPEG bytes; `out`, `runs` are set), writes its first output as
// raw float32 to out + "/bench.f32" and prints "MEDIAN_SECONDS COUNT" on one line.
// Header-only; each call makes and removes its own temporary folder.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace ogai::bench {

inline const char* kBenchJpegPrelude = R"PY(
import io, math, sys, time, numpy as np
from PIL import Image
out, w, h, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
y, x = np.mgrid[0:h, 0:w]
rng = np.random.default_rng(5)
base = 128 + 100 * np.sin(x / 37.0) * np.cos(y / 23.0)
arr = np.clip(np.stack([base, base * 0.8 + 20, 255 - base], -1) + rng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)
buf = io.BytesIO(); Image.fromarray(arr).save(buf, "JPEG", quality=90); data = buf.getvalue()
open(out + "/bench.jpg", "wb").write(data)
)PY";

struct ImageBaseline {
  std::vector<std::uint8_t> jpeg;  // the generated JPEG
  std::vector<float> expected;     // the pipeline's first output
  double seconds = 0;              // its median thread CPU time
  long count = 0;                  // the number it printed beside the time
};

inline std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the prelude + `pipeline` for a `width` x `height` JPEG, `runs` timed runs; nothing when
// the subprocess failed (its command is printed to stderr).
inline std::optional<ImageBaseline> run_image_baseline(const char* pipeline, int width, int height, int runs) {
  const auto dir = std::filesystem::temp_directory_path() / ("ogai_image_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pipeline.py") << kBenchJpegPrelude << pipeline;
  const std::string cmd = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 " + (dir / "pipeline.py").string() +
                          " " + dir.string() + " " + std::to_string(width) + " " + std::to_string(height) + " " +
                          std::to_string(runs);
  ImageBaseline b;
  FILE* pipe = popen(cmd.c_str(), "r");
  const bool ok = pipe && std::fscanf(pipe, "%lf %ld", &b.seconds, &b.count) == 2;
  if (pipe) pclose(pipe);
  if (ok) {
    b.jpeg = read_file_bytes(dir / "bench.jpg");
    const auto raw = read_file_bytes(dir / "bench.f32");
    b.expected.resize(raw.size() / 4);
    std::memcpy(b.expected.data(), raw.data(), b.expected.size() * 4);
  }
  std::filesystem::remove_all(dir);
  if (!ok) std::fprintf(stderr, "the Pillow + NumPy baseline failed: %s\n", cmd.c_str());
  return ok ? std::optional<ImageBaseline>(std::move(b)) : std::nullopt;
}

// max |got - want| over float32 bytes `got`; huge when the lengths differ.
inline double max_abs_difference(const std::vector<std::uint8_t>& got_bytes, const std::vector<float>& want) {
  std::vector<float> got(got_bytes.size() / 4);
  std::memcpy(got.data(), got_bytes.data(), got.size() * 4);
  double worst = got.size() == want.size() ? 0 : 1e9;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(got[i] - want[i])));
  return worst;
}

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ogai::bench
