// Structured output: the cost of the token mask per generated token for JSON Schema generation on
// the Llama-2 (32k) and GPT-2 (50k) vocabularies and a 256k vocabulary grown from GPT-2's by
// concatenating token pairs (Gemma-4's is 262,144 tokens; its tokenizer is not among the shared
// data); the compile time of the schema and of every JSON-Schema-Test-Suite schema; and
// stories260k's whole constrained generation vs unconstrained, per token, in the same run.
// Masks: the default path (plain runs, grammar_constraint.h) against the whole-trie walk
// (MaskPath::kWholeTrie, the baseline) on the same token sequences, in paired rounds (which side
// goes first alternates); per side the median over rounds of p50 / p99 / p99.9 / max, and the
// median per-round ratio. "compute" is allowed_text_tokens() (the set of allowed tokens, what
// llguidance's figures measure); "mask" is the whole ConstraintState::mask() call, compute plus
// applying it to V logits. Cold: a fresh constraint per sequence (every cache empty); warm: one
// constraint for all sequences (its shared mask cache warm, as for a server answering one schema).
// Tokens are chosen uniformly among the allowed ones (a random model: the most varied states),
// ending with EOS once complete (1 in 3) or after --tokens.
// Mask times are the thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), so a loaded
// machine's preemptions do not show up as milliseconds-long masks; compile times are wall clock.
//   grammar_bench [--sequences N] [--tokens N] [--rounds N] [--suite DIR] [--no-e2e] [--256k-only]
//                 [--show-slow US]   (prints the text before each mask computation slower than US)
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "base/error.h"
#include "bench/bench_util.h"
#include "grammar/grammar_constraint.h"
#include "grammar/response_format.h"
#include "ogai/ogai.h"
#include "tokenizer/tokenizer.h"

namespace {

using namespace ogai;

const char* kSchema = R"({"type":"object","properties":{
  "id":{"type":"string","format":"uuid"},"name":{"type":"string","maxLength":40},
  "age":{"type":"integer","minimum":0,"maximum":150},"email":{"type":"string","format":"email"},
  "role":{"enum":["admin","editor","viewer","guest"]},"score":{"type":"number","minimum":0,"maximum":100},
  "tags":{"type":"array","items":{"type":"string","maxLength":12},"maxItems":6},
  "address":{"$ref":"#/$defs/address"},"born":{"type":"string","format":"date"}},
  "required":["id","name","age","role","tags","address"],"additionalProperties":false,
  "$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"},
  "city":{"type":"string","maxLength":30}},"required":["street","city"],"additionalProperties":false}}})";

struct Stats {
  double p50 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
  std::size_t steps = 0;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](std::size_t per_mille) { return v[std::min(v.size() - 1, v.size() * per_mille / 1000)]; };
  s.steps = v.size();
  s.p50 = at(500);
  s.p99 = at(990);
  s.p999 = at(999);
  s.max = v.back();
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::shared_ptr<const grammar::Vocabulary> load(const std::string& dir) {
  auto tok = tokenizer::Tokenizer::load(std::string(OGAI_SHARED_DIR) + dir);
  return grammar::Vocabulary::from_tokenizer(tok);
}

// GPT-2's tokens plus concatenations of pseudo-random token pairs (at most 16 bytes), to 262144.
std::shared_ptr<const grammar::Vocabulary> grown(const grammar::Vocabulary& base) {
  std::vector<std::string> bytes;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < base.size(); ++i) {
    bytes.push_back(base.bytes(static_cast<std::int64_t>(i)));
    seen.insert(bytes.back());
  }
  std::mt19937 rng(42);
  while (bytes.size() < 262144) {
    const std::string& a = base.bytes(rng() % base.size());
    const std::string& b = base.bytes(rng() % base.size());
    std::string s = a + b;
    if (a.empty() || b.empty() || s.size() > 16 || !seen.insert(s).second) continue;
    bytes.push_back(std::move(s));
  }
  return std::make_shared<grammar::Vocabulary>(std::move(bytes));
}

double g_show_slow_us = 0;  // --show-slow: print the text before every slower mask computation

struct MaskRun {
  Stats compute, mask;
  int ended = 0;
};

// One pass of --sequences sequences with `path`. shared: one constraint for every sequence (its
// mask cache warms up across them); else a fresh constraint per sequence (every cache cold).
MaskRun mask_run(const std::shared_ptr<const grammar::CompiledGrammar>& compiled,
                 const std::shared_ptr<const grammar::Vocabulary>& vocab, ogai::TokenId eos, int sequences, int tokens,
                 bool shared, grammar::MaskPath path) {
  auto make = [&] {
    return std::make_unique<grammar::GrammarConstraint>(compiled, vocab, std::vector<ogai::TokenId>{eos}, path);
  };
  auto constraint = make();
  std::vector<double> compute, whole;
  std::vector<float> logits(vocab->size());
  std::mt19937 rng(1);
  MaskRun out;
  for (int seq = 0; seq < sequences; ++seq) {
    if (!shared) constraint = make();
    auto state = constraint->start_state();
    std::string text;
    for (int t = 0; t < tokens; ++t) {
      std::fill(logits.begin(), logits.end(), 0.0f);
      const std::size_t plain_before = state->run_masks();
      const double c = bench::thread_cpu_once([&] { state->allowed_text_tokens(); }) * 1e6;
      compute.push_back(c);
      if (g_show_slow_us > 0 && c > g_show_slow_us)
        fmt::print("  slow mask {:.0f} us ({}) after: {}\n", c,
                   state->run_masks() > plain_before ? "runs" : "whole trie or cached", text);
      whole.push_back(c + bench::thread_cpu_once([&] { state->mask(logits); }) * 1e6);
      if (state->complete() && rng() % 3 == 0) {
        ++out.ended;
        break;
      }
      std::vector<ogai::TokenId> allowed;
      for (std::size_t i = 0; i < logits.size(); ++i)
        if (logits[i] == 0.0f && static_cast<ogai::TokenId>(i) != eos) allowed.push_back(static_cast<ogai::TokenId>(i));
      if (allowed.empty()) break;
      const ogai::TokenId pick = allowed[rng() % allowed.size()];
      state->accept(pick);
      if (g_show_slow_us > 0) text += vocab->bytes(pick);
    }
  }
  out.compute = stats(std::move(compute));
  out.mask = stats(std::move(whole));
  return out;
}

// Paired rounds of the plain-run path and the whole-trie baseline on the same token sequences.
void mask_bench(const char* label, const std::shared_ptr<const grammar::Vocabulary>& vocab, ogai::TokenId eos,
                int sequences, int tokens, int rounds, bool shared) {
  auto compiled = grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, kSchema, true});
  std::vector<MaskRun> fast, base;
  std::vector<double> p50_ratio, p99_ratio;
  for (int r = 0; r < rounds; ++r) {
    auto run = [&](grammar::MaskPath p) { return mask_run(compiled, vocab, eos, sequences, tokens, shared, p); };
    if (r % 2 == 0) {
      fast.push_back(run(grammar::MaskPath::kRuns));
      base.push_back(run(grammar::MaskPath::kWholeTrie));
    } else {
      base.push_back(run(grammar::MaskPath::kWholeTrie));
      fast.push_back(run(grammar::MaskPath::kRuns));
    }
    p50_ratio.push_back(fast.back().mask.p50 / base.back().mask.p50);
    p99_ratio.push_back(fast.back().mask.p99 / base.back().mask.p99);
  }
  auto row = [&](const char* side, const std::vector<MaskRun>& runs) {
    auto med = [&](auto field) {
      std::vector<double> v;
      for (const MaskRun& m : runs) v.push_back(field(m));
      return median(v);
    };
    fmt::print(
        "  {:<10} compute p50 {:7.1f} p99 {:7.1f} p99.9 {:7.1f} max {:7.1f} us | mask p50 {:7.1f} p99 {:7.1f} "
        "p99.9 {:7.1f} max {:7.1f} mean {:6.1f} us\n",
        side, med([](const MaskRun& m) { return m.compute.p50; }), med([](const MaskRun& m) { return m.compute.p99; }),
        med([](const MaskRun& m) { return m.compute.p999; }), med([](const MaskRun& m) { return m.compute.max; }),
        med([](const MaskRun& m) { return m.mask.p50; }), med([](const MaskRun& m) { return m.mask.p99; }),
        med([](const MaskRun& m) { return m.mask.p999; }), med([](const MaskRun& m) { return m.mask.max; }),
        med([](const MaskRun& m) { return m.mask.mean; }));
  };
  fmt::print("{:<24} {} V={:<7} ({} steps per run, {} of {} sequences complete, median of {} paired rounds)\n", label,
             shared ? "warm" : "cold", vocab->size(), fast.front().mask.steps, fast.front().ended, sequences, rounds);
  row("runs", fast);
  row("whole-trie", base);
  fmt::print("  runs / whole-trie: mask p50 {:.3f}, p99 {:.3f}\n", median(p50_ratio), median(p99_ratio));
}

// Compile time of every schema of the JSON-Schema-Test-Suite files under `dir` (best of 3 per
// schema; refused schemas timed too: a refusal must be as quick).
void suite_compile(const std::string& dir) {
  std::vector<std::string> schemas;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    try {
      for (const auto& group : nlohmann::json::parse(in)) schemas.push_back(group.at("schema").dump());
    } catch (const std::exception&) {
      continue;  // not a test file
    }
  }
  if (schemas.empty()) {
    fmt::print("suite compile: no schemas under {} (json-schema-test-suite not installed?)\n", dir);
    return;
  }
  std::vector<double> ok, all;
  for (const std::string& text : schemas) {
    bool compiled = true;
    const double ms =
        bench::time_best(3,
                         [&] {
                           try {
                             grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, text, true});
                           } catch (const Error&) {
                             compiled = false;
                           }
                         }) *
        1e3;
    all.push_back(ms);
    if (compiled) ok.push_back(ms);
  }
  const Stats a = stats(all), c = stats(ok);
  fmt::print(
      "suite compile ({}): {} schemas, {} compiled: p50 {:.3f} ms p99 {:.3f} ms max {:.3f} ms; all incl. "
      "refused: p99 {:.3f} ms max {:.3f} ms (goal p99 <= 10 ms)\n",
      dir, schemas.size(), ok.size(), c.p50, c.p99, c.max, a.p99, a.max);
}

// Per-token decode time of stories260k, constrained over unconstrained (median of paired rounds).
void end_to_end() {
  const std::string pkg = std::string(OGAI_BINARY_DIR) + "/packages/stories260k";
  auto model = Model::load(pkg);
  GenerationOptions plain;
  plain.max_new_tokens = 120;
  plain.ignore_eos = true;
  GenerationOptions constrained = plain;
  constrained.ignore_eos = false;
  constrained.sampling.temperature = 1.0f;
  constrained.response_format = ResponseFormat{ResponseFormat::Kind::kJsonSchema,
                                               R"({"type":"array","items":{"type":"string"},"minItems":60})", true};
  plain.sampling.temperature = 1.0f;
  std::vector<double> ratios;
  double best_plain = 1e9, best_constrained = 1e9;
  for (int round = 0; round < 7; ++round) {
    constrained.sampling.seed = plain.sampling.seed = static_cast<std::uint64_t>(round);
    auto per_token = [&](const GenerationOptions& o) {
      double start = 0;
      const double secs =
          bench::time_once([&] { start = static_cast<double>(model->generate("Once upon a time", o).ids.size()); });
      return secs * 1e3 / start;
    };
    const double a = per_token(plain), b = per_token(constrained);
    best_plain = std::min(best_plain, a);
    best_constrained = std::min(best_constrained, b);
    ratios.push_back(b / a);
  }
  std::sort(ratios.begin(), ratios.end());
  fmt::print(
      "stories260k whole generation per token: unconstrained {:.3f} ms, JSON Schema {:.3f} ms (best of 7); "
      "constrained/unconstrained median {:.3f} (goal <= 1.2)\n",
      best_plain, best_constrained, ratios[ratios.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int sequences = 16, tokens = 200, rounds = 3;
  bool e2e = true;
  std::string vocabs = "all";
  std::string suite = "/usr/share/json-schema-test-suite/tests/draft7";
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--no-e2e"))
      e2e = false;
    else if (has_value && !std::strcmp(argv[i], "--sequences"))
      sequences = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--tokens"))
      tokens = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--rounds"))
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (has_value && !std::strcmp(argv[i], "--suite"))
      suite = argv[++i];
    else if (!std::strcmp(argv[i], "--256k-only"))
      vocabs = "256k";
    else if (has_value && !std::strcmp(argv[i], "--show-slow"))
      g_show_slow_us = std::atof(argv[++i]);
    else {
      fmt::print(stderr, "grammar_bench: unknown argument '{}'\n", argv[i]);
      return 2;
    }
  }
  std::vector<double> compile;
  for (int i = 0; i < 30; ++i)
    compile.push_back(bench::time_once([] {
                        grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, kSchema, true});
                      }) *
                      1e3);
  fmt::print("schema compile: p50 {:.3f} ms (max {:.3f} ms)\n", stats(compile).p50, stats(compile).max);
  suite_compile(suite);
  std::shared_ptr<const grammar::Vocabulary> llama, gpt2, big;
  fmt::print("vocabulary build: llama2 {:.0f} ms, gpt2 {:.0f} ms\n",
             bench::time_once([&] { llama = load("/tokenizers/llama2"); }) * 1e3,
             bench::time_once([&] { gpt2 = load("/tokenizers/gpt2"); }) * 1e3);
  fmt::print("vocabulary build: 256k grown {:.0f} ms\n", bench::time_once([&] { big = grown(*gpt2); }) * 1e3);
  for (bool shared : {false, true}) {
    if (vocabs == "all") {
      mask_bench("llama2 (SentencePiece)", llama, 2, sequences, tokens, rounds, shared);
      mask_bench("gpt2 (byte-level)", gpt2, 50256, sequences, tokens, rounds, shared);
    }
    mask_bench("gpt2 grown to 256k", big, 50256, sequences, tokens, rounds, shared);
  }
  if (e2e) end_to_end();
  return 0;
}
