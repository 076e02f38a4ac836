// Decode speed of ogai's public API vs. a bare ONNX Runtime loop on the same graph (stories260k),
// side by side in one process, and ogai's own time per token at a short and a long context.
//   decode_bench [--package DIR] [--steps N] [--runs N] [--window N] [--json]
// 1. Greedy generation from "Once upon a time" (ids 1 403 407 261 378): Model::generate
//    (ignore_eos, steps + 1 new tokens) vs. BareOrtLoop (one prefill, `steps` decode runs),
//    run back to back `runs` times (alternating which goes first); the tokens must be identical.
//    Ratios: decode tok/s (ogai's Timings.decode_ms vs. the loop's decode time) as the median of
//    the pairs (robust when the machine's load changes) and best of each side; the whole call
//    (wall clock, prefill included), best of each side.
// 2. ogai's own time per decode token (Timings.runtime_ms, outside ONNX Runtime) over `window`
//    decode steps right after a 16-token and a 450-token prompt (own_time), best of `runs`;
//    it must not grow with the context. The bare loop's time outside Session::Run over the same
//    steps is printed beside it: it grows a little at 450 too (larger ORT-allocated presents to
//    release, more memory traffic per step), which is the yardstick for ogai's growth.
// Both sides use one intra-op thread. --json prints one object (read by bench/decode.cjs).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/api_decode.h"
#include "bench/bare_ort_loop.h"

namespace {

using namespace ogai;

struct Flags {
  std::string package = OGAI_PACKAGES_DIR "/stories260k";
  int steps = 400, runs = 9, window = 32;
  bool json = false;
};

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--json") f.json = true;
    else if (arg == "--package" && has_value) f.package = argv[++i];
    else if (arg == "--steps" && has_value) f.steps = std::atoi(argv[++i]);
    else if (arg == "--runs" && has_value) f.runs = std::atoi(argv[++i]);
    else if (arg == "--window" && has_value) f.window = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: decode_bench [--package DIR] [--steps N] [--runs N] [--window N] [--json]\n");
      std::exit(2);
    }
  }
  if (f.steps < 1 || f.runs < 1 || f.window < 1) {
    std::fprintf(stderr, "decode_bench: --steps, --runs and --window must be positive\n");
    std::exit(2);
  }
  return f;
}

// Per-token costs at one context length, best of the runs.
struct ContextCost {
  bench::OwnTime ogai{1e300, 1e300};  // lowest runtime_ms of each call of own_time()
  double bare_own_us = 1e300;         // the bare loop: outside Session::Run, per token
  double bare_run_us = 1e300;         // the bare loop: inside Session::Run, per token (for scale)
  int window = 1;
  // ogai's own microseconds per decode token (outside ONNX Runtime).
  double ogai_own_us() const { return (ogai.longer_ms - ogai.lead_ms) * 1e3 / window; }
};

struct Best {
  double bare_decode = 1e300, ogai_decode = 1e300, bare_call = 1e300, ogai_call = 1e300;
  std::vector<double> paired;  // per run: bare decode time / ogai decode time, measured back to back
  ContextCost short_ctx, long_ctx;
  std::vector<std::int64_t> tokens;
  bool identical = true;
};

void measure_context(const Model& model, bench::BareOrtLoop& bare, const std::vector<std::int32_t>& prompt,
                     int window, ContextCost& cost) {
  auto own = bench::own_time(model, prompt, 4, window);
  cost.window = window;
  cost.ogai.lead_ms = std::min(cost.ogai.lead_ms, own.lead_ms);
  cost.ogai.longer_ms = std::min(cost.ogai.longer_ms, own.longer_ms);
  auto loop = bare.run(std::vector<std::int64_t>(prompt.begin(), prompt.end()), window);
  cost.bare_own_us = std::min(cost.bare_own_us, (loop.decode_seconds - loop.decode_run_seconds) * 1e6 / window);
  cost.bare_run_us = std::min(cost.bare_run_us, loop.decode_run_seconds * 1e6 / window);
}

Best measure(const Flags& f, const Model& model, bench::BareOrtLoop& bare) {
  const std::vector<std::int32_t> prompt = {1, 403, 407, 261, 378};
  const std::vector<std::int64_t> prompt64(prompt.begin(), prompt.end());
  const auto short_prompt = bench::story_prompt(model, 16), long_prompt = bench::story_prompt(model, 450);
  bare.run(prompt64, 16);  // warm both up the same way
  bench::run_api(model, prompt, 17);
  Best b;
  for (int r = 0; r < f.runs; ++r) {  // interleaved, best of `runs`
    bench::BareLoopResult loop;
    bench::ApiRun api;
    if (r % 2 == 0) {  // alternate which side goes first, so drifting load favours neither
      loop = bare.run(prompt64, f.steps);
      api = bench::run_api(model, prompt, f.steps + 1);
    } else {
      api = bench::run_api(model, prompt, f.steps + 1);
      loop = bare.run(prompt64, f.steps);
    }
    b.identical = b.identical && loop.tokens == api.tokens;
    b.tokens = api.tokens;
    b.bare_decode = std::min(b.bare_decode, loop.decode_seconds);
    b.bare_call = std::min(b.bare_call, loop.prefill_seconds + loop.decode_seconds);
    b.ogai_decode = std::min(b.ogai_decode, api.decode_seconds);
    b.paired.push_back(loop.decode_seconds / api.decode_seconds);
    b.ogai_call = std::min(b.ogai_call, api.call_seconds);
    measure_context(model, bare, short_prompt, f.window, b.short_ctx);
    measure_context(model, bare, long_prompt, f.window, b.long_ctx);
  }
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void print_context(const char* name, const ContextCost& c) {
  std::printf("  %-12s ogai %6.2f us/token   bare loop %6.2f us/token   (ONNX Runtime run %6.1f us/token)\n", name,
              c.ogai_own_us(), c.bare_own_us, c.bare_run_us);
}

void print_text(const Flags& f, const Best& b) {
  std::printf("stories260k greedy decode, %d steps, %d back-to-back pairs of runs, one intra-op thread\n", f.steps,
              f.runs);
  std::printf("bare ONNX Runtime loop:       %9.1f tok/s (best)\n", f.steps / b.bare_decode);
  std::printf("ogai Model::generate:         %9.1f tok/s (best)\n", f.steps / b.ogai_decode);
  std::printf("ratio ogai/bare (decode):     %9.3f  (goal >= 0.95; median of back-to-back pairs)\n",
              median(b.paired));
  std::printf("  best of each side:          %9.3f\n", b.bare_decode / b.ogai_decode);
  std::printf("ratio ogai/bare (whole call): %9.3f  (prefill + decode, wall clock)\n", b.bare_call / b.ogai_call);
  std::printf("identical tokens:             %s\n", b.identical ? "yes" : "NO");
  std::printf("own time per decode token outside ONNX Runtime, %d steps after the prompt:\n", f.window);
  print_context("context 16:", b.short_ctx);
  print_context("context 450:", b.long_ctx);
  std::printf("  ratio 450/16: ogai %.2f, bare loop %.2f  (goal: ogai ~1, no growth with context)\n",
              b.long_ctx.ogai_own_us() / b.short_ctx.ogai_own_us(), b.long_ctx.bare_own_us / b.short_ctx.bare_own_us);
}

void print_json(const Flags& f, const Best& b) {
  nlohmann::json j = {{"steps", f.steps},
                      {"runs", f.runs},
                      {"tokens", b.tokens},
                      {"identical", b.identical},
                      {"bare_decode_s", b.bare_decode},
                      {"ogai_decode_s", b.ogai_decode},
                      {"paired_ratios", b.paired},
                      {"bare_call_s", b.bare_call},
                      {"ogai_call_s", b.ogai_call},
                      {"runtime_us_ctx16", b.short_ctx.ogai_own_us()},
                      {"runtime_us_ctx450", b.long_ctx.ogai_own_us()},
                      {"bare_own_us_ctx16", b.short_ctx.bare_own_us},
                      {"bare_own_us_ctx450", b.long_ctx.bare_own_us},
                      {"bare_run_us_ctx16", b.short_ctx.bare_run_us},
                      {"bare_run_us_ctx450", b.long_ctx.bare_run_us}};
  std::printf("%s\n", j.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Flags f = parse(argc, argv);
  try {
    LoadOptions options;
    options.intra_op_threads = 1;
    auto model = Model::load(f.package, options);
    bench::BareOrtLoop bare(f.package + "/model.onnx", 5, 4, 8);
    Best b = measure(f, *model, bare);
    f.json ? print_json(f, b) : print_text(f, b);
    return b.identical ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "decode_bench: %s\n", e.what());
    return 1;
  }
}
