// Structured output: the cost of the token mask per generated token (p50 / p99, cold caches per
// sequence as in real use) for JSON Schema generation on the Llama-2 (32k) and GPT-2 (50k)
// vocabularies and a 256k vocabulary grown from GPT-2's by concatenating token pairs; the compile
// time of the schema; and stories260k's whole constrained generation vs unconstrained, per token,
// in the same run. Tokens are chosen uniformly among the allowed ones (a random model: the most
// varied states), ending with EOS once complete (1 in 3) or after --tokens.
//   grammar_bench [--sequences N] [--tokens N]
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

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
  double p50 = 0, p99 = 0, max = 0, mean = 0;
  std::size_t steps = 0;
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.steps = v.size();
  s.p50 = v[v.size() / 2];
  s.p99 = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  s.max = v.back();
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  return s;
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

// shared: one constraint for every sequence (its mask cache warms up across them, as for a
// server answering one schema); else a fresh constraint per sequence (every cache cold).
void mask_bench(const char* label, std::shared_ptr<const grammar::Vocabulary> vocab, std::int64_t eos, int sequences,
                int tokens, bool shared) {
  auto compiled = grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, kSchema, true});
  auto constraint = std::make_unique<grammar::GrammarConstraint>(compiled, vocab, std::vector<std::int64_t>{eos});
  std::vector<double> times;
  std::vector<float> logits(vocab->size());
  std::mt19937 rng(1);
  int ended = 0;
  for (int seq = 0; seq < sequences; ++seq) {
    if (!shared) constraint = std::make_unique<grammar::GrammarConstraint>(compiled, vocab, std::vector<std::int64_t>{eos});
    auto state = constraint->start_state();
    for (int t = 0; t < tokens; ++t) {
      std::fill(logits.begin(), logits.end(), 0.0f);
      times.push_back(bench::time_once([&] { state->mask(logits); }) * 1e6);
      if (state->complete() && rng() % 3 == 0) {
        ++ended;
        break;
      }
      std::vector<std::int64_t> allowed;
      for (std::size_t i = 0; i < logits.size(); ++i)
        if (logits[i] == 0.0f && static_cast<std::int64_t>(i) != eos) allowed.push_back(static_cast<std::int64_t>(i));
      if (allowed.empty()) break;
      state->accept(allowed[rng() % allowed.size()]);
    }
  }
  const Stats s = stats(times);
  fmt::print("{:<28} {} V={:<7} mask per token: p50 {:8.1f} us  p99 {:8.1f} us  max {:8.1f} us  mean {:7.1f} us  "
             "({} steps, {} of {} sequences complete)\n",
             label, shared ? "warm" : "cold", vocab->size(), s.p50, s.p99, s.max, s.mean, s.steps, ended, sequences);
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
      const double secs = bench::time_once([&] { start = static_cast<double>(model->generate("Once upon a time", o).ids.size()); });
      return secs * 1e3 / start;
    };
    const double a = per_token(plain), b = per_token(constrained);
    best_plain = std::min(best_plain, a);
    best_constrained = std::min(best_constrained, b);
    ratios.push_back(b / a);
  }
  std::sort(ratios.begin(), ratios.end());
  fmt::print("stories260k whole generation per token: unconstrained {:.3f} ms, JSON Schema {:.3f} ms (best of 7); "
             "constrained/unconstrained median {:.3f} (goal <= 1.2)\n",
             best_plain, best_constrained, ratios[ratios.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int sequences = 8, tokens = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sequences")) sequences = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--tokens")) tokens = std::atoi(argv[i + 1]);
  }
  std::vector<double> compile;
  for (int i = 0; i < 30; ++i)
    compile.push_back(bench::time_once([] {
      grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, kSchema, true});
    }) * 1e3);
  fmt::print("schema compile: p50 {:.3f} ms (max {:.3f} ms)\n", stats(compile).p50, stats(compile).max);
  std::shared_ptr<const grammar::Vocabulary> llama, gpt2, big;
  fmt::print("vocabulary build: llama2 {:.0f} ms, gpt2 {:.0f} ms\n", bench::time_once([&] { llama = load("/tokenizers/llama2"); }) * 1e3,
             bench::time_once([&] { gpt2 = load("/tokenizers/gpt2"); }) * 1e3);
  fmt::print("vocabulary build: 256k grown {:.0f} ms\n", bench::time_once([&] { big = grown(*gpt2); }) * 1e3);
  for (bool shared : {false, true}) {
    mask_bench("llama2 (SentencePiece)", llama, 2, sequences, tokens, shared);
    mask_bench("gpt2 (byte-level)", gpt2, 50256, sequences, tokens, shared);
    mask_bench("gpt2 grown to 256k", big, 50256, sequences, tokens, shared);
  }
  end_to_end();
  return 0;
}
