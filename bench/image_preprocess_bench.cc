// Image preprocessing of a 1024 x 768 JPEG to Qwen2-VL patches (decode, smart resize bicubic to
// multiples of 28, rescale, CLIP normalisation, 14-pixel patches x temporal 2, merge 2):
// ogai's preprocessing.image program (src/media) vs. Pillow + NumPy doing the same steps
// (Hugging Face's Qwen2VLImageProcessor pipeline), same JPEG, same run, one thread each, thread
// CPU time, median of N runs. The outputs are checked equal (within 1e-5) before timing.
// Goal (issue 34): ogai / Pillow+NumPy <= 1.5.
// Usage: image_preprocess_bench [--runs N] [--width W] [--height H]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/image_bench_setup.h"
#include "media/image/program.h"

namespace {

// After kBenchJpegPrelude (image_bench_setup.h).
const char* kPipeline = R"PY(
MEAN = np.array([0.48145466, 0.4578275, 0.40821073], np.float32); STD = np.array([0.26862954, 0.26130258, 0.27577711], np.float32)
def smart(hh, ww, f=28, lo=56 * 56, hi=28 * 28 * 1280):
    import math
    hb, wb = round(hh / f) * f, round(ww / f) * f
    if hb * wb > hi:
        b = math.sqrt(hh * ww / hi); hb = max(f, math.floor(hh / b / f) * f); wb = max(f, math.floor(ww / b / f) * f)
    elif hb * wb < lo:
        b = math.sqrt(lo / (hh * ww)); hb = math.ceil(hh * b / f) * f; wb = math.ceil(ww * b / f) * f
    return hb, wb
def pipeline():
    im = Image.open(io.BytesIO(data)).convert("RGB")
    hh, ww = smart(im.height, im.width)
    a = np.asarray(im.resize((ww, hh), Image.Resampling.BICUBIC))
    a = (a.astype(np.float64) * (1 / 255)).astype(np.float32)
    a = ((a - MEAN) / STD).astype(np.float32).transpose(2, 0, 1)[None]
    a = np.repeat(a, 2, axis=0)
    gh, gw = hh // 14, ww // 14
    p = a.reshape(1, 2, 3, gh // 2, 2, 14, gw // 2, 2, 14).transpose(0, 3, 6, 4, 7, 2, 1, 5, 8).reshape(gh * gw, 1176)
    return np.ascontiguousarray(p)
p = pipeline(); p.astype(np.float32).tofile(out + "/bench.f32")
times = []
for _ in range(runs):
    t0 = time.thread_time(); pipeline(); times.append(time.thread_time() - t0)
times.sort(); print(times[len(times) // 2], p.shape[0])
)PY";

const char* kProgram = R"({
  "transforms": [
    {"op": "decode_rgb"},
    {"op": "resize", "mode": "pixel_area", "interpolation": "bicubic", "min_pixels": 3136, "max_pixels": 1003520,
     "size_multiple": 28},
    {"op": "rescale", "scale": 0.00392156862745098},
    {"op": "normalize", "mean": [0.48145466, 0.4578275, 0.40821073], "std": [0.26862954, 0.26130258, 0.27577711]},
    {"op": "patchify", "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2},
    {"op": "emit_grid_coordinates"}
  ],
  "outputs": [{"name": "pixel_values", "content": "pixels", "dtype": "float32"},
              {"name": "grid_thw", "content": "grid_dimensions", "dtype": "int64"}]})";

}  // namespace

int main(int argc, char** argv) {
  int runs = 15, width = 1024, height = 768;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") runs = std::atoi(argv[i + 1]);
    else if (flag == "--width") width = std::atoi(argv[i + 1]);
    else if (flag == "--height") height = std::atoi(argv[i + 1]);
  }
  const auto baseline = ogai::bench::run_image_baseline(kPipeline, width, height, runs);
  if (!baseline) return 1;
  const double python_seconds = baseline->seconds;
  const long rows = baseline->count;
  const auto& jpeg = baseline->jpeg;
  const auto program = ogai::media::ImageProgram::parse(nlohmann::json::parse(kProgram), "bench");
  const auto out = program.run(jpeg, "bench.jpg");
  const double worst = ogai::bench::max_abs_difference(out[0].data, baseline->expected);
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) times.push_back(ogai::bench::thread_cpu_once([&] { program.run(jpeg, "bench.jpg"); }));
  const double ogai_seconds = ogai::bench::median_of(times);
  std::printf("image %dx%d JPEG (%zu bytes) -> %ld patches x 1176, max |ogai - numpy| %.2g\n", width, height,
              jpeg.size(), rows, worst);
  std::printf("ogai preprocessing.image   %8.2f ms (median of %d, thread CPU)\n", ogai_seconds * 1e3, runs);
  std::printf("Pillow + NumPy             %8.2f ms\n", python_seconds * 1e3);
  std::printf("ratio ogai / Pillow+NumPy  %8.2f  (goal <= 1.5)\n", ogai_seconds / python_seconds);
  return worst <= 1e-5 ? 0 : 1;
}
