// Gemma-4 image preprocessing of a 1024 x 768 JPEG (Hugging Face's Gemma4ImageProcessor: decode,
// aspect-ratio patch budget resize to 912 x 672 bicubic, rescale, 16-pixel patches channels-last,
// positions, padding to 2520 patches, the soft-token count) by ogai's preprocessing.image program
// (src/media), one thread, thread CPU time. Two baselines in the same run:
//  - the JPEG decode alone (ogai's libjpeg-turbo decode), timed in pairs with the whole program,
//    alternating; the ratio is the median of the per-pair ratios;
//  - Pillow + NumPy doing the processor's steps on the same file (a /usr/bin/python3 subprocess,
//    its own median), whose output is checked equal to ogai's (within 1e-5) first.
// Goal (issue 35): ogai's program <= 10 ms.
// Usage: gemma4_image_bench [--runs N] [--width W] [--height H]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench/bench_util.h"
#include "media/image/decode.h"
#include "media/image/program.h"

namespace {

const char* kPython = R"PY(
import io, math, sys, time, numpy as np
from PIL import Image
out, w, h, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
y, x = np.mgrid[0:h, 0:w]
rng = np.random.default_rng(5)
base = 128 + 100 * np.sin(x / 37.0) * np.cos(y / 23.0)
arr = np.clip(np.stack([base, base * 0.8 + 20, 255 - base], -1) + rng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)
buf = io.BytesIO(); Image.fromarray(arr).save(buf, "JPEG", quality=90); data = buf.getvalue()
open(out + "/bench.jpg", "wb").write(data)
P, MAXP, POOL = 16, 2520, 3
def pipeline():
    im = Image.open(io.BytesIO(data)).convert("RGB")
    f = math.sqrt(MAXP * P * P / (im.height * im.width)); side = P * POOL
    th, tw = math.floor(f * im.height / side) * side, math.floor(f * im.width / side) * side
    a = np.asarray(im.resize((tw, th), Image.Resampling.BICUBIC))
    a = (a.astype(np.float64) * (1 / 255)).astype(np.float32)
    ph, pw = th // P, tw // P
    pixels = np.zeros((1, MAXP, P * P * 3), np.float32)
    pixels[0, :ph * pw] = a.reshape(ph, P, pw, P, 3).transpose(0, 2, 1, 3, 4).reshape(ph * pw, P * P * 3)
    pos = np.full((1, MAXP, 2), -1, np.int64)
    r, c = np.mgrid[0:ph, 0:pw]
    pos[0, :ph * pw] = np.stack([c.ravel(), r.ravel()], -1)
    return pixels, pos, ph * pw // (POOL * POOL)
p, pos, tokens = pipeline(); p.tofile(out + "/bench.f32")
times = []
for _ in range(runs):
    t0 = time.thread_time(); pipeline(); times.append(time.thread_time() - t0)
times.sort(); print(times[len(times) // 2], tokens)
)PY";

const char* kProgram = R"({
  "transforms": [
    {"op": "decode_rgb", "outputs": ["rgb"]},
    {"op": "resize", "inputs": ["rgb"], "outputs": ["resized"], "mode": "aspect_ratio_patch_budget",
     "patch_size": 16, "max_patches": 2520, "pooling_kernel_size": 3, "interpolation": "bicubic"},
    {"op": "rescale", "inputs": ["resized"], "outputs": ["scaled"], "scale": 0.00392156862745098},
    {"op": "patchify", "inputs": ["scaled"], "outputs": ["patches"], "patch_size": 16,
     "channel_order": "channels_last", "patch_order": "raster", "coordinate_order": "xy"},
    {"op": "emit_patch_coordinates", "inputs": ["patches"], "outputs": ["coords"]},
    {"op": "emit_token_count", "inputs": ["patches"], "outputs": ["tokens"], "patches_per_token": 9},
    {"op": "pad", "inputs": ["patches", "coords"], "outputs": ["padded", "padded_coords"], "target_length": 2520}
  ],
  "outputs": [{"name": "pixel_values", "content": "pixels", "dtype": "float32", "source": "padded"},
              {"name": "pixel_position_ids", "content": "patch_coordinates", "dtype": "int64",
               "source": "padded_coords"},
              {"name": "num_soft_tokens", "content": "token_count", "dtype": "int64", "source": "tokens"}]})";

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 21, width = 1024, height = 768;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--width") width = std::atoi(argv[i + 1]);
    else if (flag == "--height") height = std::atoi(argv[i + 1]);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("ogai_gemma4_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pipeline.py") << kPython;
  const std::string cmd = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 " + (dir / "pipeline.py").string() +
                          " " + dir.string() + " " + std::to_string(width) + " " + std::to_string(height) + " " +
                          std::to_string(runs);
  FILE* pipe = popen(cmd.c_str(), "r");
  double python_seconds = 0;
  long python_tokens = 0;
  if (!pipe || std::fscanf(pipe, "%lf %ld", &python_seconds, &python_tokens) != 2) {
    std::fprintf(stderr, "the Pillow + NumPy baseline failed: %s\n", cmd.c_str());
    std::filesystem::remove_all(dir);
    return 1;
  }
  pclose(pipe);
  const auto jpeg = read_bytes(dir / "bench.jpg");
  const auto program = ogai::media::ImageProgram::parse(nlohmann::json::parse(kProgram), "bench");
  const auto out = program.run(jpeg, "bench.jpg");
  const auto want_bytes = read_bytes(dir / "bench.f32");
  std::filesystem::remove_all(dir);
  std::vector<float> got(out[0].data.size() / 4), want(want_bytes.size() / 4);
  std::memcpy(got.data(), out[0].data.data(), out[0].data.size());
  std::memcpy(want.data(), want_bytes.data(), want_bytes.size());
  double worst = got.size() == want.size() ? 0 : 1e9;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(got[i] - want[i])));
  std::int64_t tokens = 0;
  std::memcpy(&tokens, out[2].data.data(), sizeof(tokens));

  std::vector<double> full, decode, ratio;
  for (int r = 0; r < runs; ++r) {
    full.push_back(ogai::bench::thread_cpu_once([&] { program.run(jpeg, "bench.jpg"); }));
    decode.push_back(ogai::bench::thread_cpu_once([&] { ogai::media::decode_image(jpeg, "bench.jpg"); }));
    ratio.push_back(full.back() / decode.back());
  }
  const double ogai_seconds = median(full);
  std::printf("image %dx%d JPEG (%zu bytes) -> %lld soft tokens (Pillow+NumPy: %ld), max |ogai - numpy| %.2g\n",
              width, height, jpeg.size(), static_cast<long long>(tokens), python_tokens, worst);
  std::printf("ogai Gemma-4 program       %8.2f ms (median of %d, thread CPU)   goal <= 10 ms\n", ogai_seconds * 1e3,
              runs);
  std::printf("ogai JPEG decode alone     %8.2f ms\n", median(decode) * 1e3);
  std::printf("ratio program / decode     %8.2f  (median of %d paired runs)\n", median(ratio), runs);
  std::printf("Pillow + NumPy             %8.2f ms\n", python_seconds * 1e3);
  std::printf("ratio ogai / Pillow+NumPy  %8.2f\n", ogai_seconds / python_seconds);
  return worst <= 1e-5 && tokens == python_tokens ? 0 : 1;
}
