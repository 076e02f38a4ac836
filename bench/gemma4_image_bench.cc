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
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/image_bench_setup.h"
#include "media/image/decode.h"
#include "media/image/program.h"

namespace {

// After kBenchJpegPrelude (image_bench_setup.h).
const char* kPipeline = R"PY(
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

}  // namespace

int main(int argc, char** argv) {
  int runs = 21, width = 1024, height = 768;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--width") width = std::atoi(argv[i + 1]);
    else if (flag == "--height") height = std::atoi(argv[i + 1]);
  }
  const auto baseline = ogai::bench::run_image_baseline(kPipeline, width, height, runs);
  if (!baseline) return 1;
  const double python_seconds = baseline->seconds;
  const long python_tokens = baseline->count;
  const auto& jpeg = baseline->jpeg;
  const auto program = ogai::media::ImageProgram::parse(nlohmann::json::parse(kProgram), "bench");
  const auto out = program.run(jpeg, "bench.jpg");
  const double worst = ogai::bench::max_abs_difference(out[0].data, baseline->expected);
  std::int64_t tokens = 0;
  std::memcpy(&tokens, out[2].data.data(), sizeof(tokens));

  std::vector<double> full, decode, ratio;
  for (int r = 0; r < runs; ++r) {
    full.push_back(ogai::bench::thread_cpu_once([&] { program.run(jpeg, "bench.jpg"); }));
    decode.push_back(ogai::bench::thread_cpu_once([&] { ogai::media::decode_image(jpeg, "bench.jpg"); }));
    ratio.push_back(full.back() / decode.back());
  }
  const double ogai_seconds = ogai::bench::median_of(full);
  std::printf("image %dx%d JPEG (%zu bytes) -> %lld soft tokens (Pillow+NumPy: %ld), max |ogai - numpy| %.2g\n",
              width, height, jpeg.size(), static_cast<long long>(tokens), python_tokens, worst);
  std::printf("ogai Gemma-4 program       %8.2f ms (median of %d, thread CPU)   goal <= 10 ms\n", ogai_seconds * 1e3,
              runs);
  std::printf("ogai JPEG decode alone     %8.2f ms\n", ogai::bench::median_of(decode) * 1e3);
  std::printf("ratio program / decode     %8.2f  (median of %d paired runs)\n", ogai::bench::median_of(ratio), runs);
  std::printf("Pillow + NumPy             %8.2f ms\n", python_seconds * 1e3);
  std::printf("ratio ogai / Pillow+NumPy  %8.2f\n", ogai_seconds / python_seconds);
  return worst <= 1e-5 && tokens == python_tokens ? 0 : 1;
}
