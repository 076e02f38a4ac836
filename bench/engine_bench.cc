// Continuous batching and the prefix cache, in process, each against its baseline in the same run.
//   engine_bench [--package DIR] [--requests N] [--tokens N] [--runs N] [--system-tokens N] [--threads N]
// 1. Batching: N greedy requests (different prompts, `tokens` new tokens each, EOS ignored)
//    submitted together to one ogai::Engine vs. the same N requests one after another through
//    Model::generate; aggregate generated tokens/s of both, ratio = median over back-to-back
//    pairs (which side goes first alternates); the ids must be identical.
// 2. Prefix cache: N requests sharing a system prompt of `system-tokens` tokens (different
//    endings), submitted one after another to an engine with the prefix cache and to one
//    without; mean time to first token of each, ratio = without / with (median of pairs).
// Both sides use the same ONNX Runtime thread count (--threads, default 1).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ogai/ogai.h"

namespace {

using namespace ogai;

struct Flags {
  std::string package = OGAI_PACKAGES_DIR "/stories260k";
  int requests = 16, tokens = 64, runs = 5, system_tokens = 400, threads = 1;
};

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--package" && has_value) f.package = argv[++i];
    else if (arg == "--requests" && has_value) f.requests = std::atoi(argv[++i]);
    else if (arg == "--tokens" && has_value) f.tokens = std::atoi(argv[++i]);
    else if (arg == "--runs" && has_value) f.runs = std::atoi(argv[++i]);
    else if (arg == "--system-tokens" && has_value) f.system_tokens = std::atoi(argv[++i]);
    else if (arg == "--threads" && has_value) f.threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: engine_bench [--package DIR] [--requests N] [--tokens N] [--runs N] [--system-tokens N] "
                   "[--threads N]\n");
      std::exit(2);
    }
  }
  if (f.requests < 1 || f.tokens < 1 || f.runs < 1 || f.system_tokens < 1 || f.threads < 0) {
    std::fprintf(stderr, "engine_bench: every count must be positive\n");
    std::exit(2);
  }
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

GenerationOptions greedy(int tokens) {
  GenerationOptions o;
  o.max_new_tokens = tokens;
  o.ignore_eos = true;
  return o;
}

// Distinct prompts: a few words of a base text, shifted per request.
std::vector<std::vector<std::int32_t>> prompts(const Model& model, int n) {
  const std::vector<std::string> words = {"Once", "upon", "a", "time", "there", "was", "a", "little", "girl",
                                          "named", "Lily", "who", "loved", "to", "play", "outside"};
  std::vector<std::vector<std::int32_t>> out;
  for (int i = 0; i < n; ++i) {
    std::string text;
    for (int w = 0; w < 3 + i % 5; ++w) text += (w ? " " : "") + words[static_cast<std::size_t>(i + w) % words.size()];
    out.push_back(model.tokenize(text));
  }
  return out;
}

struct Pass {
  double seconds = 0;
  std::vector<std::vector<std::int32_t>> ids;
};

Pass one_after_another(const Model& model, const std::vector<std::vector<std::int32_t>>& ps, int tokens) {
  Pass p;
  p.seconds = bench::time_once([&] {
    for (const auto& prompt : ps) p.ids.push_back(model.generate(prompt, greedy(tokens)).ids);
  });
  return p;
}

Pass batched(const std::shared_ptr<const Model>& model, const std::vector<std::vector<std::int32_t>>& ps, int tokens) {
  EngineOptions o;
  o.max_sequences = static_cast<int>(ps.size());
  o.prefix_cache_bytes = 0;
  Engine engine(model, o);
  Pass p;
  p.seconds = bench::time_once([&] {
    std::vector<std::shared_ptr<GenerationHandle>> handles;
    for (const auto& prompt : ps) handles.push_back(engine.submit(prompt, greedy(tokens)));
    for (auto& h : handles) p.ids.push_back(h->wait().ids);
  });
  return p;
}

// Mean time to first token of requests sharing a system prompt, sent one after another.
double mean_ttft(const std::shared_ptr<const Model>& model, const std::vector<std::vector<std::int32_t>>& ps,
                 bool cache) {
  EngineOptions o;
  o.prefix_cache_bytes = cache ? (256u << 20) : 0;
  Engine engine(model, o);
  double total = 0;
  for (const auto& prompt : ps) total += engine.submit(prompt, greedy(4))->wait().timings.ttft_ms;
  return total / static_cast<double>(ps.size());
}

std::vector<std::vector<std::int32_t>> shared_system(const Model& model, int n, int system_tokens) {
  std::vector<std::int32_t> system = model.tokenize("Once upon a time, there was a little girl named Lily.");
  const std::size_t base = system.size();
  while (static_cast<int>(system.size()) < system_tokens) system.push_back(system[1 + system.size() % (base - 1)]);
  system.resize(static_cast<std::size_t>(system_tokens));
  std::vector<std::vector<std::int32_t>> out;
  const auto endings = prompts(model, n);
  for (int i = 0; i < n; ++i) {
    auto p = system;
    const auto& e = endings[static_cast<std::size_t>(i)];
    p.insert(p.end(), e.begin() + 1, e.end());  // without the ending's BOS
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  LoadOptions load;
  load.intra_op_threads = f.threads;
  auto model = Model::load(f.package, load);
  const auto ps = prompts(*model, f.requests);

  std::vector<double> ratios;
  double best_seq = 1e300, best_batch = 1e300;
  bool identical = true;
  for (int run = 0; run < f.runs; ++run) {
    Pass a, b;
    if (run % 2 == 0) {
      a = one_after_another(*model, ps, f.tokens);
      b = batched(model, ps, f.tokens);
    } else {
      b = batched(model, ps, f.tokens);
      a = one_after_another(*model, ps, f.tokens);
    }
    identical = identical && a.ids == b.ids;
    ratios.push_back(a.seconds / b.seconds);
    best_seq = std::min(best_seq, a.seconds);
    best_batch = std::min(best_batch, b.seconds);
  }
  const double generated = static_cast<double>(f.requests) * f.tokens;
  std::printf("%s: %d requests x %d tokens, %d back-to-back pairs, %d intra-op thread(s)\n", f.package.c_str(),
              f.requests, f.tokens, f.runs, f.threads);
  std::printf("one after another (Model::generate): %9.1f tok/s (best)\n", generated / best_seq);
  std::printf("together (ogai::Engine):             %9.1f tok/s (best)\n", generated / best_batch);
  std::printf("ratio engine/sequential:             %9.2f   (median of pairs; goal >= 8 at 16 requests)\n",
              median(ratios));
  std::printf("identical tokens:                    %s\n", identical ? "yes" : "NO");

  const auto shared = shared_system(*model, f.requests, f.system_tokens);
  std::vector<double> ttft_ratios;
  double with_cache = 0, without_cache = 0;
  for (int run = 0; run < f.runs; ++run) {
    without_cache = mean_ttft(model, shared, false);
    with_cache = mean_ttft(model, shared, true);
    ttft_ratios.push_back(without_cache / with_cache);
  }
  std::printf("prefix cache: %d requests sharing a %d-token system prompt, sent one after another\n", f.requests,
              f.system_tokens);
  std::printf("  mean time to first token: without %8.2f ms, with %8.2f ms (last pair)\n", without_cache, with_cache);
  std::printf("  ratio without/with:       %8.2f   (median of pairs; goal >= 5)\n", median(ttft_ratios));
  return identical ? 0 : 1;
}
