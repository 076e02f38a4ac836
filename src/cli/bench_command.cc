// `ogai bench PKG [--prompt-len N | --prompt-ids JSON] [--gen N] [--runs N] [--json]`: prefill and
// decode speed, time to first token, and ogai's own time per token outside ONNX Runtime. Greedy,
// EOS ignored, so every run does the same work; reports the median run. The prompt is a synthetic
// text of --prompt-len tokens, or --prompt-ids as given (the only prompt a token-id package takes).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "cli/model_flags.h"
#include "cli/prompt_ids.h"

namespace ogai::cli {
namespace {

struct BenchFlags {
  ModelFlags model;
  int prompt_len = 128;
  std::string prompt_ids;  // --prompt-ids JSON
  int gen = 128;
  int runs = 3;
  bool json = false;
};

struct RunStats {
  double prefill_tok_s, decode_tok_s, ttft_ms, runtime_us_per_token;
};

std::vector<std::int32_t> synthetic_prompt(const Model& model, int length) {
  std::string text;
  std::vector<std::int32_t> ids;
  while (static_cast<int>(ids.size()) < length) {
    text += "Once upon a time, there was a little robot who loved to count the stars in the sky. ";
    ids = model.tokenize(text, true);
  }
  ids.resize(static_cast<std::size_t>(length));
  return ids;
}

RunStats run_once(const Model& model, const std::vector<std::int32_t>& prompt, int gen) {
  GenerationOptions options;
  options.max_new_tokens = gen;
  options.ignore_eos = true;
  options.sampling.do_sample = false;
  GenerationResult r = model.generate(prompt, options);
  const Timings& t = r.timings;
  double tokens = static_cast<double>(std::max<std::size_t>(r.ids.size(), 1));
  return {t.prefill_ms > 0 ? prompt.size() / (t.prefill_ms / 1e3) : 0, t.decode_tok_s, t.ttft_ms,
          t.runtime_ms * 1e3 / tokens};
}

int run_bench(const BenchFlags& f) {
  double load_ms = 0;
  auto model = load_model(f.model, &load_ms);
  auto prompt = f.prompt_ids.empty() ? synthetic_prompt(*model, f.prompt_len) : parse_prompt_ids(f.prompt_ids, "--prompt-ids");
  const int prompt_len = static_cast<int>(prompt.size());
  run_once(*model, prompt, std::min(f.gen, 8));  // warm-up
  std::vector<RunStats> runs;
  for (int i = 0; i < f.runs; ++i) runs.push_back(run_once(*model, prompt, f.gen));
  std::sort(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.decode_tok_s < b.decode_tok_s; });
  const RunStats& m = runs[runs.size() / 2];
  if (f.json) {
    nlohmann::ordered_json j = {{"package", f.model.package}, {"prompt_len", prompt_len}, {"gen", f.gen},
                        {"runs", f.runs}, {"load_ms", load_ms}, {"prefill_tok_s", m.prefill_tok_s},
                        {"decode_tok_s", m.decode_tok_s}, {"ttft_ms", m.ttft_ms},
                        {"runtime_us_per_token", m.runtime_us_per_token}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("package      %s (load %.0f ms)\n", f.model.package.c_str(), load_ms);
    std::printf("prompt %d tokens, %d generated, median of %d runs\n", prompt_len, f.gen, f.runs);
    std::printf("prefill      %10.1f tok/s\n", m.prefill_tok_s);
    std::printf("decode       %10.1f tok/s\n", m.decode_tok_s);
    std::printf("ttft         %10.2f ms\n", m.ttft_ms);
    std::printf("ogai's own   %10.2f us/token (outside ONNX Runtime)\n", m.runtime_us_per_token);
  }
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand("bench", "measure prefill/decode speed and ogai's own cost per token");
  add_model_flags(*cmd, flags->model);
  auto* len = cmd->add_option("--prompt-len", flags->prompt_len, "prompt tokens")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--prompt-ids", flags->prompt_ids, "the prompt as a JSON array of token ids, fed exactly (no BOS)")
      ->excludes(len);
  cmd->add_option("--gen", flags->gen, "tokens to generate")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--runs", flags->runs, "timed runs (median reported)")->check(CLI::Range(1, 10000));
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->callback([&result, flags] { result.exit_code = run_bench(*flags); });
}

}  // namespace ogai::cli
