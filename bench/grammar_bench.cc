// Structured output: the cost of the token mask per generated token for JSON Schema generation on
// the Llama-2 (32k) and GPT-2 (50k) vocabularies and a 256k vocabulary grown from GPT-2's by
// concatenating token pairs (Gemma-4's is 262,144 tokens; its tokenizer is not among the shared
// data); the compile time of the schema and of every JSON-Schema-Test-Suite schema; and
// stories260k's whole constrained generation vs unconstrained, per token, in the same run.
// Masks, per generated token: "mask" is ConstraintState::allowed(), the call the Sampler makes
// (the allowed set, computed or taken from the caches; what llguidance's figures measure), and
// "mask + -inf over V" the same made into a masked row (what the mask call cost before the fused
// path). End to end, paired on the same logits row (which side goes first alternates by step):
// "fused" is a constrained Sampler's sample() (mask + sample one token, the mask consumed inside
// the sampler's own pass), "-inf row" the mask written over the row and an unconstrained Sampler
// on it (the same token, checked), "plain" an unconstrained Sampler on the raw row (the
// baseline: what the token costs without structured output); per round fused / plain at p50 and
// p99, medians over rounds. Greedy and seeded sampling (temperature 0.8, top-p 0.95: the
// dense-weights and top-p gather passes). The default mask path (plain runs, grammar_constraint.h);
// --whole-trie measures the whole-trie walk (MaskPath::kWholeTrie) instead. Cold: fresh
// constraints per sequence (every cache empty); warm: one per side for all sequences (its shared
// mask cache warm, as for a server answering one schema). Each side has its own constraint.
// Tokens: the fused greedy pick over random logits, i.e. uniform among the allowed ones (a random
// model: the most varied states), ending with EOS once complete (1 in 3) or after --tokens.
// Mask times are the thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), so a loaded
// machine's preemptions do not show up as milliseconds-long masks; compile times are wall clock.
//   grammar_bench [--sequences N] [--tokens N] [--rounds N] [--suite DIR] [--no-e2e] [--256k-only]
//                 [--whole-trie] [--show-slow US]   (prints the text before each mask computation slower than US)
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "base/error.h"
#include "bench/bench_util.h"
#include "grammar/grammar_constraint.h"
#include "grammar/response_format.h"
#include "ogai/ogai.h"
#include "sampling/sampler.h"
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

// What one step costs, in microseconds of thread CPU time, per side.
struct StepTimes {
  std::vector<double> mask;         // ConstraintState::allowed(): the mask call the Sampler makes
  std::vector<double> materialize;  // allowed() + mask(logits): the call before the fused path
  std::vector<double> fused;        // constrained Sampler::sample(): mask + sample one token
  std::vector<double> masked_row;   // allowed() + mask(logits) + unconstrained sample of that row
  std::vector<double> plain;        // unconstrained Sampler::sample() of the raw row: the baseline
};

struct ModeRun {
  Stats fused, masked_row, plain;
  double p50_ratio = 0, p99_ratio = 0;  // fused / plain
};

struct MaskRun {
  Stats mask, materialize;
  std::vector<ModeRun> modes;  // per sampling mode
  int ended = 0;
};

// The sampling modes measured end to end: greedy, and seeded sampling through top-p's gather.
std::vector<std::pair<const char*, sampling::SamplingParams>> modes() {
  sampling::SamplingParams greedy;
  greedy.do_sample = false;
  sampling::SamplingParams sampled;
  sampled.temperature = 0.8;
  sampled.top_p = 0.95;
  sampled.seed = 1;
  return {{"greedy", greedy}, {"T0.8 top-p0.95", sampled}};
}

// A few rows of N(0, 3) logits the steps cycle through (drawing 262k normals per step would
// dominate the run).
std::vector<std::vector<float>> logit_rows(std::size_t v) {
  std::mt19937 rng(9);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<std::vector<float>> rows(8, std::vector<float>(v));
  for (auto& row : rows)
    for (float& x : row) x = d(rng);
  return rows;
}

// One pass of --sequences sequences with `path`. shared: one constraint per side for every
// sequence (its mask cache warms up across them); else fresh ones per sequence (every cache cold).
// Each side has its own constraint, so no side finds masks another computed. The token each
// step continues with is the fused greedy Sampler's pick (a greedy pick over random logits: uniform
// among the allowed tokens), checked equal to the masked row's; a complete text ends (EOS) 1 in 3.
MaskRun mask_run(const std::shared_ptr<const grammar::CompiledGrammar>& compiled,
                 const std::shared_ptr<const grammar::Vocabulary>& vocab, ogai::TokenId eos, int sequences, int tokens,
                 bool shared, grammar::MaskPath path) {
  auto make = [&] {
    return std::make_shared<grammar::GrammarConstraint>(compiled, vocab, std::vector<ogai::TokenId>{eos}, path);
  };
  const auto v = static_cast<std::int64_t>(vocab->size());
  const auto mode_params = modes();
  const std::size_t n_modes = mode_params.size();
  std::shared_ptr<grammar::GrammarConstraint> mask_side = make();
  std::vector<std::shared_ptr<grammar::GrammarConstraint>> fused_side(n_modes);
  for (auto& c : fused_side) c = make();
  static std::map<std::size_t, std::vector<std::vector<float>>> row_cache;
  auto& rows = row_cache[vocab->size()];
  if (rows.empty()) rows = logit_rows(vocab->size());
  StepTimes times;
  std::vector<StepTimes> per_mode(n_modes);
  std::vector<float> a(vocab->size()), b(vocab->size());
  std::mt19937 rng(1);
  MaskRun out;
  std::uint64_t step_count = 0;
  for (int seq = 0; seq < sequences; ++seq) {
    if (!shared) {
      mask_side = make();
      for (auto& c : fused_side) c = make();
    }
    auto state = mask_side->start_state();
    std::vector<sampling::Sampler> fused, masked_row, plain;
    for (std::size_t m = 0; m < n_modes; ++m) {
      sampling::SamplingParams p = mode_params[m].second;
      masked_row.emplace_back(p, v);
      plain.emplace_back(p, v);
      p.constraint = fused_side[m];
      fused.emplace_back(p, v);
    }
    std::string text;
    for (int t = 0; t < tokens; ++t, ++step_count) {
      if (state->complete() && rng() % 3 == 0) {
        ++out.ended;
        break;
      }
      const std::vector<float>& row = rows[(static_cast<std::size_t>(t) + 3 * static_cast<std::size_t>(seq)) % 8];
      const std::size_t plain_before = state->run_masks();
      const double mask_us = bench::thread_cpu_once([&] { state->allowed(); }) * 1e6;
      if (g_show_slow_us > 0 && mask_us > g_show_slow_us)
        fmt::print("  slow mask {:.0f} us ({}) after: {}\n", mask_us,
                   state->run_masks() > plain_before ? "runs" : "whole trie or cached", text);
      times.mask.push_back(mask_us);
      b = row;
      const double apply_us = bench::thread_cpu_once([&] { state->mask(b); }) * 1e6;
      times.materialize.push_back(mask_us + apply_us);
      ogai::TokenId pick = -1;
      for (std::size_t m = 0; m < n_modes; ++m) {
        ogai::TokenId fused_pick = -1, row_pick = -1;
        // Paired: which side goes first alternates by step.
        auto run_fused = [&] {
          a = row;
          per_mode[m].fused.push_back(bench::thread_cpu_once([&] { fused_pick = fused[m].sample(a); }) * 1e6);
        };
        auto run_plain = [&] {
          a = row;
          per_mode[m].plain.push_back(bench::thread_cpu_once([&] { plain[m].sample(a); }) * 1e6);
        };
        if (step_count % 2 == 0) {
          run_fused();
          run_plain();
        } else {
          run_plain();
          run_fused();
        }
        b = row;
        per_mode[m].masked_row.push_back(mask_us + bench::thread_cpu_once([&] {
                                                     state->mask(b);
                                                     row_pick = masked_row[m].sample(b);
                                                   }) * 1e6);
        if (fused_pick != row_pick) {
          fmt::print(stderr, "grammar_bench: mode {} step {}: fused sampler picked {}, the masked row {}\n",
                     mode_params[m].first, t, fused_pick, row_pick);
          std::exit(1);
        }
        if (m == 0) pick = fused_pick;
      }
      if (pick == eos) {
        ++out.ended;
        break;
      }
      state->accept(pick);
      for (std::size_t m = 0; m < n_modes; ++m) {
        fused[m].accept(pick);
        masked_row[m].accept(pick);
        plain[m].accept(pick);
      }
      if (g_show_slow_us > 0) text += vocab->bytes(pick);
    }
  }
  out.mask = stats(std::move(times.mask));
  out.materialize = stats(std::move(times.materialize));
  for (std::size_t m = 0; m < n_modes; ++m) {
    ModeRun r;
    r.fused = stats(per_mode[m].fused);
    r.masked_row = stats(std::move(per_mode[m].masked_row));
    r.plain = stats(per_mode[m].plain);
    r.p50_ratio = r.fused.p50 / r.plain.p50;
    r.p99_ratio = r.fused.p99 / r.plain.p99;
    out.modes.push_back(r);
  }
  return out;
}

// Medians over rounds of one field of a run.
template <class Field>
double med(const std::vector<MaskRun>& runs, Field field) {
  std::vector<double> v;
  for (const MaskRun& m : runs) v.push_back(field(m));
  return median(v);
}

std::string row_text(const std::vector<MaskRun>& runs, auto stats_of) {
  return fmt::format("p50 {:7.1f} p99 {:7.1f} p99.9 {:7.1f} max {:7.1f} us",
                     med(runs, [&](const MaskRun& m) { return stats_of(m).p50; }),
                     med(runs, [&](const MaskRun& m) { return stats_of(m).p99; }),
                     med(runs, [&](const MaskRun& m) { return stats_of(m).p999; }),
                     med(runs, [&](const MaskRun& m) { return stats_of(m).max; }));
}

// Rounds of mask_run; per figure the median over rounds.
void mask_bench(const char* label, const std::shared_ptr<const grammar::Vocabulary>& vocab, ogai::TokenId eos,
                int sequences, int tokens, int rounds, bool shared, grammar::MaskPath path) {
  auto compiled = grammar::compile_response_format({ResponseFormat::Kind::kJsonSchema, kSchema, true});
  std::vector<MaskRun> runs;
  for (int r = 0; r < rounds; ++r) runs.push_back(mask_run(compiled, vocab, eos, sequences, tokens, shared, path));
  fmt::print("{:<24} {} V={:<7} {} ({} steps per run, {} of {} sequences complete, median of {} rounds)\n", label,
             shared ? "warm" : "cold", vocab->size(), path == grammar::MaskPath::kRuns ? "runs" : "whole-trie",
             runs.front().mask.steps, runs.front().ended, sequences, rounds);
  fmt::print("  mask (allowed)          {}\n", row_text(runs, [](const MaskRun& m) { return m.mask; }));
  fmt::print("  mask + -inf over V      {}\n", row_text(runs, [](const MaskRun& m) { return m.materialize; }));
  const auto names = modes();
  for (std::size_t k = 0; k < names.size(); ++k) {
    auto mode = [k](const MaskRun& m) { return m.modes[k]; };
    fmt::print("  {:<15} fused    {}\n", names[k].first,
               row_text(runs, [&](const MaskRun& m) { return mode(m).fused; }));
    fmt::print("  {:<15} -inf row {}\n", "", row_text(runs, [&](const MaskRun& m) { return mode(m).masked_row; }));
    fmt::print("  {:<15} plain    {}\n", "", row_text(runs, [&](const MaskRun& m) { return mode(m).plain; }));
    fmt::print("  {:<15} fused / plain (mask + sample over unconstrained sample): p50 {:.3f}, p99 {:.3f}\n", "",
               med(runs, [&](const MaskRun& m) { return mode(m).p50_ratio; }),
               med(runs, [&](const MaskRun& m) { return mode(m).p99_ratio; }));
  }
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
  grammar::MaskPath path = grammar::MaskPath::kRuns;
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
    else if (!std::strcmp(argv[i], "--whole-trie"))
      path = grammar::MaskPath::kWholeTrie;
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
      mask_bench("llama2 (SentencePiece)", llama, 2, sequences, tokens, rounds, shared, path);
      mask_bench("gpt2 (byte-level)", gpt2, 50256, sequences, tokens, rounds, shared, path);
    }
    mask_bench("gpt2 grown to 256k", big, 50256, sequences, tokens, rounds, shared, path);
  }
  if (e2e) end_to_end();
  return 0;
}
