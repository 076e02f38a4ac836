// `ogai compare A B [--prompts FILE] [--tokens N] [--threads N] [--json]`: how closely package B
// (e.g. a quantized copy) follows package A on the same prompts.
//   greedy agreement: the share of positions whose argmax matches when both read the same tokens
//     (teacher forcing on the prompt followed by A's greedy continuation of N tokens);
//   KL(A || B) of the next-token distributions at those positions, mean and max (nats);
//   first divergence: the first generated token where free greedy runs of A and B differ.
// Positions scored: each prompt's last token and the N continuation tokens but the last (the
// predictions of the continuation). Prompts: one per line of FILE (blank lines skipped), or four
// built-in story openings. A against itself gives agreement 1 and KL 0.
// Exit 0 compared, 1 the packages disagree on vocabulary or a run failed, 2 usage or unreadable.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/input_file.h"
#include "cli/command.h"
#include "generate/model_impl.h"
#include "ogai/ogai.h"

namespace ogai::cli {
namespace {

struct CompareArgs {
  std::string a, b, prompts_file;
  int tokens = 32, threads = 0;
  bool json = false;
};

const std::vector<std::string> kDefaultPrompts = {"Once upon a time", "The little dog", "One day, a girl named Lily",
                                                  "Tom and his friend went to the park"};

std::vector<std::string> read_prompts(const std::string& file) {
  if (file.empty()) return kDefaultPrompts;
  std::istringstream in(read_file(file, kMaxTextInputBytes));
  std::vector<std::string> prompts;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.find_first_not_of(" \t\r") != std::string::npos) prompts.push_back(line);
  if (prompts.empty()) fail(ErrorCode::kInvalidArgument, file, "holds no prompt (one per line)");
  return prompts;
}

// log-softmax of one row of logits.
std::vector<double> log_probs(std::span<const float> logits) {
  const double top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float x : logits) sum += std::exp(x - top);
  const double log_sum = top + std::log(sum);
  std::vector<double> out(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] - log_sum;
  return out;
}

// Logits [seq, vocab] of `ids` read in one step (teacher forcing), as float32.
std::vector<std::vector<float>> forced_logits(const Model& model, const std::vector<TokenId>& ids) {
  const generate::Decoder& decoder = *model.impl().decoder;
  generate::AttentionState attention(1);
  kv::KvCache cache(decoder.spec().cache, 1);
  generate::StepOutput out = decoder.step(ids, static_cast<std::int64_t>(ids.size()), {}, attention, cache);
  std::vector<std::vector<float>> rows;
  std::vector<float> scratch;
  for (std::int64_t pos = 0; pos < static_cast<std::int64_t>(ids.size()); ++pos) {
    std::span<float> row = out.row_logits(0, pos, scratch);
    rows.emplace_back(row.begin(), row.end());
  }
  return rows;
}

std::vector<std::int32_t> greedy(const Model& model, const std::vector<std::int32_t>& prompt, int tokens) {
  GenerationOptions options;
  options.max_new_tokens = tokens;
  options.ignore_eos = true;
  options.sampling.do_sample = false;
  return model.generate(prompt, options).ids;
}

struct Totals {
  std::size_t positions = 0, agree = 0;
  double kl_sum = 0, kl_max = 0;
  std::vector<int> first_divergence;  // per prompt; -1 = none within the tokens
};

void compare_prompt(const Model& a, const Model& b, const std::string& prompt, int tokens, Totals& t) {
  const std::vector<std::int32_t> ids = a.tokenize(prompt, true);
  if (ids.empty()) fail(ErrorCode::kInvalidArgument, "--prompts", "the prompt '{}' encodes to no token", prompt);
  const std::vector<std::int32_t> run_a = greedy(a, ids, tokens), run_b = greedy(b, ids, tokens);
  int divergence = -1;
  for (std::size_t i = 0; i < std::min(run_a.size(), run_b.size()); ++i)
    if (run_a[i] != run_b[i]) {
      divergence = static_cast<int>(i);
      break;
    }
  if (divergence < 0 && run_a.size() != run_b.size())
    divergence = static_cast<int>(std::min(run_a.size(), run_b.size()));
  t.first_divergence.push_back(divergence);

  std::vector<TokenId> forced(ids.begin(), ids.end());
  forced.insert(forced.end(), run_a.begin(), run_a.end());
  const auto la = forced_logits(a, forced), lb = forced_logits(b, forced);
  for (std::size_t pos = ids.size() - 1; pos + 1 < forced.size(); ++pos) {
    const auto pa = log_probs(la[pos]), pb = log_probs(lb[pos]);
    if (pa.size() != pb.size())
      fail(ErrorCode::kInvalidArgument, "", "the packages' vocabularies differ ({} vs {} logits)", pa.size(),
           pb.size());
    double kl = 0;
    for (std::size_t v = 0; v < pa.size(); ++v) kl += std::exp(pa[v]) * (pa[v] - pb[v]);
    kl = std::max(kl, 0.0);
    t.kl_sum += kl;
    t.kl_max = std::max(t.kl_max, kl);
    t.agree +=
        std::max_element(pa.begin(), pa.end()) - pa.begin() == std::max_element(pb.begin(), pb.end()) - pb.begin();
    ++t.positions;
  }
}

int run_compare(const CompareArgs& args) {
  std::vector<std::string> prompts;
  std::shared_ptr<const Model> a, b;
  try {
    prompts = read_prompts(args.prompts_file);
    LoadOptions options;
    options.intra_op_threads = args.threads;
    a = Model::load(args.a, options);
    b = Model::load(args.b, options);
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai compare: %s\n", e.what());
    return e.code() == ErrorCode::kNotFound || e.code() == ErrorCode::kParse ? kExitUsage : kExitFailure;
  }
  Totals t;
  try {
    if (a->info().vocab_size != b->info().vocab_size)
      fail(ErrorCode::kInvalidArgument, args.b, "vocabulary {} differs from {}'s {}", b->info().vocab_size, args.a,
           a->info().vocab_size);
    for (const auto& p : prompts) compare_prompt(*a, *b, p, args.tokens, t);
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai compare: %s\n", e.what());
    return kExitFailure;
  }
  const double agreement = t.positions ? static_cast<double>(t.agree) / t.positions : 1.0;
  const double kl_mean = t.positions ? t.kl_sum / t.positions : 0.0;
  if (args.json) {
    nlohmann::ordered_json j = {{"a", args.a},
                                {"b", args.b},
                                {"prompts", prompts.size()},
                                {"tokens", args.tokens},
                                {"positions", t.positions},
                                {"greedy_agreement", agreement},
                                {"kl_mean", kl_mean},
                                {"kl_max", t.kl_max},
                                {"first_divergence", t.first_divergence}};
    std::printf("%s\n", j.dump().c_str());
    return kExitOk;
  }
  std::printf("A %s\nB %s\n", args.a.c_str(), args.b.c_str());
  std::printf("prompts %zu, %d tokens each, %zu positions (teacher forcing on A's greedy continuation)\n",
              prompts.size(), args.tokens, t.positions);
  std::printf("greedy agreement  %.4f (%zu/%zu)\n", agreement, t.agree, t.positions);
  std::printf("KL(A||B)          mean %.6f  max %.6f nats\n", kl_mean, t.kl_max);
  std::string divergence;
  for (std::size_t i = 0; i < t.first_divergence.size(); ++i)
    divergence += fmt::format("{}{}", i ? " " : "",
                              t.first_divergence[i] < 0 ? std::string("none") : std::to_string(t.first_divergence[i]));
  std::printf("first divergence  %s (generated token index per prompt; none = equal for %d tokens)\n",
              divergence.c_str(), args.tokens);
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("compare", "measure how closely package B follows package A (agreement, KL)");
  auto args = std::make_shared<CompareArgs>();
  cmd->add_option("A", args->a, "the reference package")->required();
  cmd->add_option("B", args->b, "the package compared with it")->required();
  cmd->add_option("--prompts", args->prompts_file, "prompts, one per line (default: four built-in ones)");
  cmd->add_option("--tokens", args->tokens, "greedy tokens per prompt (default 32)")->check(CLI::Range(1, 4096));
  cmd->add_option("--threads", args->threads, "ONNX Runtime intra-op threads (0 = its default)")
      ->check(CLI::Range(0, 256));
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([&result, args] { result.exit_code = run_compare(*args); });
}

}  // namespace ogai::cli
