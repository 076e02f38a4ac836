// The most speculative decoding can give on a reply, whatever rule picks the run widths.
//   speculation_bound [--package DIR] [--draft-tokens K] [--tokens N] [--rounds N] [--costs c2,c3,...]
// Generates the greedy replies of speculative_bench's six prompts (N tokens, EOS ignored), then,
// at every position of each reply, the n-gram drafter's proposal (the engine's own NgramDrafter,
// K tokens) and how many of its tokens the reply accepts. A schedule picks, at each step, a plain
// step (cost 1, one token) or a run S wide (S = 2..K+1: the pending token and S - 1 proposed
// ones, cost c(S), 1 + the accepted ones among them); dynamic programming finds the cheapest
// schedule knowing every acceptance in advance, which no rule can beat. The bound is plain steps
// over that cost (prefill left out, which favours speculation). c(S) are bare ONNX Runtime runs of
// the package's graph at one row (bench/wide_run.h: no ogai code, the floor under the engine's
// wide runs), measured here relative to S = 1, or given with --costs. Also printed: the same for
// an oracle lookup (the longest continuation of any earlier occurrence of any suffix, the best a
// prompt-lookup drafter could propose) and with widening free (c = 1), the drafter's own ceiling.
// Evidence for issue 23 item 4's 1-request goal (speculative/plain >= 1.2), not a goal itself.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/wide_run.h"
#include "generate/ngram_drafter.h"
#include "ogai/ogai.h"

namespace {

using namespace ogai;

struct Flags {
  std::string package = OGAI_PACKAGES_DIR "/stories260k";
  int draft_tokens = 4, tokens = 200, rounds = 150;
  std::vector<double> costs;  // c(2), c(3), ...; empty: measured
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: speculation_bound [--package DIR] [--draft-tokens K] [--tokens N] [--rounds N] "
               "[--costs c2,c3,...]\n");
  std::exit(2);
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (arg == "--package") {
      f.package = value;
    } else if (arg == "--draft-tokens") {
      f.draft_tokens = std::atoi(value.c_str());
    } else if (arg == "--tokens") {
      f.tokens = std::atoi(value.c_str());
    } else if (arg == "--rounds") {
      f.rounds = std::atoi(value.c_str());
    } else if (arg == "--costs") {
      for (std::size_t at = 0; at <= value.size();) {
        const auto comma = std::min(value.find(',', at), value.size());
        f.costs.push_back(std::atof(value.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else {
      usage();
    }
  }
  if (f.draft_tokens < 1 || f.tokens < 2 || f.rounds < 1) usage();
  if (!f.costs.empty() && f.costs.size() != static_cast<std::size_t>(f.draft_tokens)) usage();
  for (double c : f.costs)
    if (c < 1) usage();
  return f;
}

// c(S) for S = 1..K+1 (c(1) = 1): bare runs at one row over `past` positions, rounds interleaving
// the widths, median thread CPU time relative to S = 1.
std::vector<double> measured_costs(const std::string& model_path, int k, std::int64_t past, int rounds) {
  auto g = bench::open_wide_graph(model_path);
  std::vector<float> kv(static_cast<std::size_t>(g.kv_heads * past * g.head_dim), 0.01f);
  std::vector<ort::Tensor> presents;
  std::vector<std::vector<double>> t(static_cast<std::size_t>(k) + 2);
  for (int round = 0; round < rounds + 10; ++round)
    for (int s = 1; s <= k + 1; ++s) {
      const double took = bench::wide_run(g, 1, past, s, kv, presents);
      if (round >= 10) t[static_cast<std::size_t>(s)].push_back(took);
    }
  std::vector<double> c(static_cast<std::size_t>(k) + 2, 1.0);
  const double plain = bench::median(t[1]);
  for (int s = 2; s <= k + 1; ++s)
    c[static_cast<std::size_t>(s)] = bench::median(t[static_cast<std::size_t>(s)]) / plain;
  return c;
}

using Ids = std::vector<TokenId>;

std::size_t common_prefix(const TokenId* a, std::size_t n, const Ids& reply, std::size_t from) {
  std::size_t m = 0;
  while (m < n && from + m < reply.size() && a[m] == reply[from + m]) ++m;
  return m;
}

// Per position i (1..N-1; i tokens generated, the last one pending): how many of the proposal's
// tokens the reply accepts (at most k).
std::vector<std::size_t> ngram_accepts(const Ids& prompt, const Ids& reply, int k) {
  const generate::NgramDrafter drafter(3);
  std::vector<std::size_t> acc(reply.size(), 0);
  Ids history = prompt, proposal;
  for (std::size_t i = 1; i < reply.size(); ++i) {
    history.push_back(reply[i - 1]);
    proposal.clear();
    drafter.propose({.history = history, .max_tokens = k}, proposal);
    acc[i] = common_prefix(proposal.data(), proposal.size(), reply, i);
  }
  return acc;
}

// The same for the best continuation of any earlier occurrence of any suffix (1..8 tokens).
std::vector<std::size_t> oracle_accepts(const Ids& prompt, const Ids& reply, int k) {
  std::vector<std::size_t> acc(reply.size(), 0);
  Ids h = prompt;
  for (std::size_t i = 1; i < reply.size(); ++i) {
    h.push_back(reply[i - 1]);
    for (std::size_t n = 1; n <= 8 && n < h.size(); ++n)
      for (std::size_t start = 0; start + n < h.size(); ++start) {
        if (!std::equal(h.end() - static_cast<std::ptrdiff_t>(n), h.end(),
                        h.begin() + static_cast<std::ptrdiff_t>(start)))
          continue;
        const std::size_t follow = start + n,
                          avail = std::min<std::size_t>(static_cast<std::size_t>(k), h.size() - follow);
        acc[i] = std::max(acc[i], common_prefix(h.data() + follow, avail, reply, i));
      }
  }
  return acc;
}

// Plain steps over the cheapest schedule's cost; `runs` gets that schedule's wide runs.
double bound(const std::vector<std::size_t>& acc, const std::vector<double>& c, int k, int& runs) {
  const std::size_t n = acc.size();
  runs = 0;
  if (n < 2) return 1.0;  // a reply cut to one token (the context's end) has no step to schedule
  std::vector<double> best(n + 1, 0.0);
  std::vector<int> width(n + 1, 1);
  for (std::size_t i = n - 1; i >= 1; --i) {
    best[i] = 1 + best[i + 1];
    for (int j = 1; j <= k; ++j) {
      const std::size_t next = std::min(n, i + std::min(acc[i], static_cast<std::size_t>(j)) + 1);
      const double cost = c[static_cast<std::size_t>(j) + 1] + best[next];
      if (cost < best[i]) best[i] = cost, width[i] = j + 1;
    }
  }
  for (std::size_t i = 1; i < n;) {
    const std::size_t j = static_cast<std::size_t>(width[i]) - 1;
    runs += j > 0;
    i += std::min(acc[i], j) + 1;
  }
  return static_cast<double>(n - 1) / best[1];
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  LoadOptions load;
  load.intra_op_threads = 1;
  auto model = Model::load(f.package, load);
  std::vector<double> c(static_cast<std::size_t>(f.draft_tokens) + 2, 1.0);
  if (f.costs.empty())
    c = measured_costs(f.package + "/model.onnx", f.draft_tokens, 8 + f.tokens / 2, f.rounds);
  else
    std::copy(f.costs.begin(), f.costs.end(), c.begin() + 2);
  std::printf("%s, K = %d, %d tokens; c(S) for S = 2..%d (%s):", f.package.c_str(), f.draft_tokens, f.tokens,
              f.draft_tokens + 1, f.costs.empty() ? "bare runs at one row, measured" : "given");
  for (int s = 2; s <= f.draft_tokens + 1; ++s) std::printf(" %.3f", c[static_cast<std::size_t>(s)]);
  std::printf("\n");
  const std::vector<double> free_widening(c.size(), 1.0);
  const std::vector<std::string> prompts = {"Once upon a time", "Lily and Tom went to the park",
                                            "The little dog",   "One day, a boy named Tim",
                                            "She was happy",    "The sun was"};
  GenerationOptions greedy;
  greedy.max_new_tokens = f.tokens;
  greedy.ignore_eos = true;
  for (const auto& p : prompts) {
    const auto r = model->generate(p, greedy);
    const Ids prompt(r.prompt_ids.begin(), r.prompt_ids.end()), reply(r.ids.begin(), r.ids.end());
    const auto ngram = ngram_accepts(prompt, reply, f.draft_tokens);
    const auto oracle = oracle_accepts(prompt, reply, f.draft_tokens);
    std::size_t ngram_total = 0, oracle_total = 0;
    for (std::size_t i = 0; i < ngram.size(); ++i) ngram_total += ngram[i] > 0, oracle_total += oracle[i] > 0;
    int runs_ngram = 0, runs_oracle = 0, runs_free = 0;
    const double b_ngram = bound(ngram, c, f.draft_tokens, runs_ngram);
    const double b_oracle = bound(oracle, c, f.draft_tokens, runs_oracle);
    const double b_free = bound(ngram, free_widening, f.draft_tokens, runs_free);
    std::printf(
        "%-32s n-gram bound %.3f (%d wide runs; %zu positions with an accepted first token); "
        "oracle lookup %.3f (%d; %zu); n-gram, widening free %.3f\n",
        ("\"" + p + "\"").c_str(), b_ngram, runs_ngram, ngram_total, b_oracle, runs_oracle, oracle_total, b_free);
  }
  return 0;
}
