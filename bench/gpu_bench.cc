// Batched decode through ogai's engine vs. a bare IoBinding loop on the same graph and execution
// provider (bound_ort_loop.h), at several batch sizes, same run:
//   gpu_bench [--package DIR] [--ep cpu|cuda] [--batches 1,8,32] [--tokens N] [--runs N] [--threads N]
// Each batch size: B identical greedy requests (EOS ignored, `tokens` new tokens each) submitted
// together to one ogai::Engine, and the bare loop decoding the same prompt in B rows; tokens/s is
// B x tokens over the wall time of the whole batch (prefill included) on both sides; the ratio is
// the median over back-to-back pairs (which side goes first alternates). Prints whether ogai's
// ids equal the bare loop's. scripts/gpu_check.sh runs it on e2b-bench in float16.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/bound_ort_loop.h"
#include "ogai/ogai.h"

namespace {

using namespace ogai;

struct Flags {
  std::string package = OGAI_PACKAGES_DIR "/e2b-bench";
  std::string ep = "cuda";
  std::vector<int> batches = {1, 8, 32};
  int tokens = 64, runs = 3, threads = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "gpu_bench: %s\nusage: gpu_bench [--package DIR] [--ep cpu|cuda] [--batches 1,8,32] "
               "[--tokens N] [--runs N] [--threads N]\n", why);
  std::exit(2);
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) usage(("flag " + arg + " needs a value").c_str());
    std::string value = argv[++i];
    if (arg == "--package") f.package = value;
    else if (arg == "--ep") f.ep = value;
    else if (arg == "--batches") f.batches = parse_list(value);
    else if (arg == "--tokens") f.tokens = std::atoi(value.c_str());
    else if (arg == "--runs") f.runs = std::atoi(value.c_str());
    else if (arg == "--threads") f.threads = std::atoi(value.c_str());
    else usage(("unknown flag " + arg).c_str());
  }
  if (f.ep != "cpu" && f.ep != "cuda") usage(("--ep must be cpu or cuda, not " + f.ep).c_str());
  if (f.tokens < 1 || f.runs < 1 || f.threads < 0 || f.batches.empty()) usage("counts must be positive");
  for (int b : f.batches)
    if (b < 1) usage("every batch size must be positive");
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct EnginePass {
  double seconds = 0;
  std::vector<std::int32_t> ids;  // row 0
  bool rows_agree = true;
};

EnginePass engine_pass(const std::shared_ptr<const Model>& model, const std::vector<std::int32_t>& prompt, int batch,
                       int tokens) {
  EngineOptions o;
  o.max_sequences = batch;
  o.prefix_cache_bytes = 0;
  Engine engine(model, o);
  GenerationOptions g;
  g.max_new_tokens = tokens;
  g.ignore_eos = true;
  EnginePass p;
  p.seconds = bench::time_once([&] {
    std::vector<std::shared_ptr<GenerationHandle>> handles;
    for (int r = 0; r < batch; ++r) handles.push_back(engine.submit(prompt, g));
    for (std::size_t r = 0; r < handles.size(); ++r) {
      auto ids = handles[r]->wait().ids;
      if (r == 0) p.ids = ids;
      else if (ids != p.ids) p.rows_agree = false;
    }
  });
  return p;
}

void run_batch(const Flags& f, const std::shared_ptr<const Model>& model, bench::BoundOrtLoop& bare,
               const std::vector<std::int32_t>& prompt, int batch) {
  const std::vector<std::int64_t> prompt64(prompt.begin(), prompt.end());
  engine_pass(model, prompt, batch, f.tokens);  // warm-up both sides
  bare.run(prompt64, batch, f.tokens - 1);
  std::vector<double> ogai_tps, bare_tps, ratios;
  bool same = true, agree = true;
  const double generated = static_cast<double>(batch) * f.tokens;
  for (int i = 0; i < f.runs; ++i) {
    EnginePass e;
    bench::BoundLoopResult b;
    if (i % 2 == 0) {
      e = engine_pass(model, prompt, batch, f.tokens);
      b = bare.run(prompt64, batch, f.tokens - 1);
    } else {
      b = bare.run(prompt64, batch, f.tokens - 1);
      e = engine_pass(model, prompt, batch, f.tokens);
    }
    same = same && std::equal(e.ids.begin(), e.ids.end(), b.tokens.begin(), b.tokens.end());
    agree = agree && e.rows_agree && b.rows_agree;
    ogai_tps.push_back(generated / e.seconds);
    bare_tps.push_back(generated / b.seconds);
    ratios.push_back(b.seconds / e.seconds);
  }
  std::printf("batch %3d: ogai %9.1f tok/s  bare IoBinding %9.1f tok/s  ogai/bare %.3f (median of %d pairs)  "
              "ids %s%s\n", batch, median(ogai_tps), median(bare_tps), median(ratios), f.runs,
              same ? "identical" : "DIFFER", agree ? "" : " (rows of one side disagree)");
}

}  // namespace

int main(int argc, char** argv) {
  Flags f = parse(argc, argv);
  try {
    LoadOptions options;
    options.execution_provider = f.ep;
    options.intra_op_threads = f.threads;
    auto model = Model::load(f.package, options);
    bench::BoundOrtLoop bare(f.package + "/model.onnx", f.ep, f.threads);
    const auto prompt = model->tokenize("Once upon a time there was a little girl");
    std::printf("%s on %s, %zu-token prompt, %d new tokens per row, intra-op threads %d\n", f.package.c_str(),
                f.ep.c_str(), prompt.size(), f.tokens, f.threads);
    for (int b : f.batches) run_batch(f, model, bare, prompt, b);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
