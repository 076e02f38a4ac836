// Speculative decoding inside the engine, against plain decoding in the same run.
//   speculative_bench [--package DIR] [--drafter ngram|assistant] [--draft-tokens K] [--requests N]
//                     [--tokens N] [--runs N] [--threads N]
// For 1 request and for N requests submitted together to one ogai::Engine: greedy generation of
// `tokens` new tokens each (EOS ignored), plain vs speculative (the drafter, K); aggregate generated
// tokens/s of both, ratio speculative/plain = median over back-to-back pairs (which side goes
// first alternates); the ids must be identical (greedy speculative equals plain greedy). Speculative
// rows verify in the engine's shared run where the graph allows it (stories260k: yes), as wide as
// pays for the batch (src/generate/speculation_width.h). Prints proposed and accepted tokens per
// request. Goals (issue 23): speculative/plain >= 1.0 at 8 requests and >= 1.2 at 1 request.
// Also prints the same median ratio of the process's CPU seconds per pass: with --threads 1 the
// work done, without the time other processes held the cores (on a loaded machine the wall ratio
// swings by tenths between runs; the goals are the wall ratio).
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
  SpeculativeOptions::Drafter drafter = SpeculativeOptions::Drafter::kNgram;
  int draft_tokens = 4, requests = 8, tokens = 96, runs = 5, threads = 1;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: speculative_bench [--package DIR] [--drafter ngram|assistant] [--draft-tokens K] "
               "[--requests N] [--tokens N] [--runs N] [--threads N]\n");
  std::exit(2);
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (arg == "--package")
      f.package = value;
    else if (arg == "--drafter" && (value == "ngram" || value == "assistant"))
      f.drafter = value == "ngram" ? SpeculativeOptions::Drafter::kNgram : SpeculativeOptions::Drafter::kAssistant;
    else if (arg == "--draft-tokens")
      f.draft_tokens = std::atoi(value.c_str());
    else if (arg == "--requests")
      f.requests = std::atoi(value.c_str());
    else if (arg == "--tokens")
      f.tokens = std::atoi(value.c_str());
    else if (arg == "--runs")
      f.runs = std::atoi(value.c_str());
    else if (arg == "--threads")
      f.threads = std::atoi(value.c_str());
    else
      usage();
  }
  if (f.draft_tokens < 1 || f.requests < 1 || f.tokens < 1 || f.runs < 1 || f.threads < 0) usage();
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<std::string> prompts(int n) {
  const std::vector<std::string> base = {"Once upon a time", "Lily and Tom went to the park",
                                         "The little dog",   "One day, a boy named Tim",
                                         "She was happy",    "The sun was"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(base[static_cast<std::size_t>(i) % base.size()]);
  return out;
}

struct Pass {
  double seconds = 0;
  double cpu_seconds = 0;
  std::vector<std::vector<std::int32_t>> ids;
  long drafted = 0, accepted = 0;
};

Pass together(const std::shared_ptr<const Model>& model, const std::vector<std::string>& ps,
              const GenerationOptions& options) {
  Engine engine(model, {.max_sequences = static_cast<int>(ps.size()), .prefix_cache_bytes = 0});
  Pass p;
  const double cpu_before = bench::process_cpu_seconds();
  p.seconds = bench::time_once([&] {
    std::vector<std::shared_ptr<GenerationHandle>> handles;
    for (const auto& prompt : ps) handles.push_back(engine.submit(prompt, options));
    for (auto& h : handles) {
      const GenerationResult& r = h->wait();
      p.ids.push_back(r.ids);
      p.drafted += r.draft_tokens;
      p.accepted += r.accepted_draft_tokens;
    }
  });
  p.cpu_seconds = bench::process_cpu_seconds() - cpu_before;
  return p;
}

// Median ratio of tokens/s (speculative over plain) over back-to-back pairs; prints both.
bool compare(const std::shared_ptr<const Model>& model, const Flags& f, int requests) {
  GenerationOptions plain;
  plain.max_new_tokens = f.tokens;
  plain.ignore_eos = true;
  GenerationOptions spec = plain;
  spec.speculative.drafter = f.drafter;
  spec.speculative.max_draft_tokens = f.draft_tokens;
  const auto ps = prompts(requests);
  std::vector<double> ratios, cpu_ratios;
  double best_plain = 1e300, best_spec = 1e300;
  bool identical = true;
  long drafted = 0, accepted = 0;
  for (int run = 0; run < f.runs; ++run) {
    Pass a, b;
    if (run % 2 == 0) {
      a = together(model, ps, plain);
      b = together(model, ps, spec);
    } else {
      b = together(model, ps, spec);
      a = together(model, ps, plain);
    }
    identical = identical && a.ids == b.ids;
    drafted += b.drafted;
    accepted += b.accepted;
    ratios.push_back(a.seconds / b.seconds);
    cpu_ratios.push_back(a.cpu_seconds / b.cpu_seconds);
    best_plain = std::min(best_plain, a.seconds);
    best_spec = std::min(best_spec, b.seconds);
  }
  const double generated = static_cast<double>(requests) * f.tokens;
  std::printf("%d request(s) x %d tokens in one engine:\n", requests, f.tokens);
  std::printf("  plain:       %9.1f tok/s (best)\n", generated / best_plain);
  std::printf("  speculative: %9.1f tok/s (best); %.1f proposed and %.1f accepted tokens per request\n",
              generated / best_spec, static_cast<double>(drafted) / (f.runs * requests),
              static_cast<double>(accepted) / (f.runs * requests));
  std::printf("  ratio speculative/plain: %5.2f (median of %d pairs); identical tokens: %s\n", median(ratios), f.runs,
              identical ? "yes" : "NO");
  std::printf("  CPU-time ratio speculative/plain: %5.2f (median of %d pairs)\n", median(cpu_ratios), f.runs);
  return identical;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  LoadOptions load;
  load.intra_op_threads = f.threads;
  auto model = Model::load(f.package, load);
  std::printf("%s, drafter %s, K = %d, %d intra-op thread(s)\n", f.package.c_str(),
              f.drafter == SpeculativeOptions::Drafter::kNgram ? "ngram" : "assistant", f.draft_tokens, f.threads);
  bool ok = compare(model, f, 1);
  if (f.requests > 1) ok = compare(model, f, f.requests) && ok;
  return ok ? 0 : 1;
}
