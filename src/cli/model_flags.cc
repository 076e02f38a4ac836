#include "cli/model_flags.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <random>
#include <cstdio>
#include <variant>

#include "ogai/sampling_fields.h"

namespace ogai::cli {
namespace {

template <typename T>
void add_optional(CLI::App& cmd, const std::string& name, std::optional<T>& target, const std::string& help) {
  cmd.add_option_function<T>(name, [&target](const T& v) { target = v; }, help);
}

void show_progress(std::string_view stage, double fraction) {
  std::fprintf(stderr, "\rloading %.*s %3d%%\x1b[K", static_cast<int>(stage.size()), stage.data(),
               static_cast<int>(fraction * 100));
  if (fraction >= 1.0) std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

std::uint64_t random_seed() {
  std::random_device entropy;
  return (static_cast<std::uint64_t>(entropy()) << 32 | entropy()) & ((std::uint64_t{1} << 63) - 1);
}

// The front ends' one default (docs/cli.md#sampling-default): generation_config.json's sampling,
// else temperature 1 with every filter and penalty off.
constexpr const char* kPackageDefault = " (default: the package's generation_config.json, else temperature 1, filters off)";

}  // namespace

void add_model_flags(CLI::App& cmd, ModelFlags& flags) {
  cmd.add_option("PKG,-m,--model", flags.package,
                 "package directory (or its inference_metadata file); an ONNX Runtime GenAI or Optimum export "
                 "folder is imported in memory")
      ->required();
  cmd.add_option("--ep", flags.ep, "execution provider: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  cmd.add_option("--threads", flags.threads, "ONNX Runtime intra-op threads (0 = its default)")
      ->check(CLI::Range(0, 4096))->capture_default_str();
  cmd.add_option("--device", flags.device, "accelerator index, with --ep cuda")
      ->check(CLI::Range(0, 1023))->capture_default_str();
  cmd.add_option("-c,--ctx-size", flags.ctx_size,
                 "cap the context (prompt + reply positions) below the package's (0 = the package's)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))->capture_default_str();
  cmd.add_flag("--allow-cpu-fallback", flags.allow_cpu_fallback, "use the CPU if the requested EP is unavailable");
  cmd.add_option("--dtype", flags.dtype,
                 "an Optimum / onnx-community folder's graph variant, by transformers.js's dtype names: fp32 "
                 "(model.onnx), fp16, q8 (model_quantized.onnx), int8, uint8, q4, q4f16, bnb4 (default: "
                 "config.json's transformers.js_config.dtype, else fp32)");
}

void add_chat_template_flag(CLI::App& cmd, ModelFlags& flags) {
  cmd.add_option("--chat-template", flags.chat_template,
                 "chat template file (.jinja, or a tokenizer_config.json / chat_template.json) to use instead of "
                 "the package's")
      ->check(CLI::ExistingFile);
  cmd.add_option("--response-template", flags.response_template,
                 "response template that parses replies (a JSON file holding response_template, or a "
                 "tokenizer_config.json) instead of the package's or the built-in")
      ->check(CLI::ExistingFile);
}

void add_sampling_flags(CLI::App& cmd, SamplingFlags& flags) {
  auto& o = flags.options;
  auto& s = o.sampling;
  s.default_do_sample = true;  // unset everywhere: sample at temperature 1, as the server and C/Python do
  add_optional(cmd, "-n,--max-new-tokens,--max-tokens", o.max_new_tokens, "most tokens to generate");
  for (const SamplingField& field : kSamplingFields)
    std::visit([&](auto member) { add_optional(cmd, field.flag(), s.*member, std::string(field.help) + kPackageDefault); },
               field.member);
  cmd.add_option_function<std::int64_t>(
         "--seed",
         [&flags](std::int64_t v) {
           if (v < -1) throw CLI::ValidationError("--seed", std::to_string(v) + " is not a seed (>= 0, or -1 for a random one)");
           flags.random_seed = v == -1;
           flags.options.sampling.seed = v == -1 ? random_seed() : static_cast<std::uint64_t>(v);
         },
         "random seed, >= 0 (same seed, same output); -1 = a random seed (reported by --json)");
  // One value per occurrence: `--stop X PKG` must not take the package path as a second stop.
  cmd.add_option("--stop", o.stop, "stop string (repeatable, one per flag); never printed")->allow_extra_args(false);
  cmd.add_flag("--ignore-eos", o.ignore_eos, "keep generating after end-of-sequence tokens");
  cmd.add_flag("--truncate-prompt", o.truncate_prompt, "keep the end of a prompt longer than the context");
  cmd.add_option("--prefill-chunk", o.prefill_chunk, "prefill at most N tokens per step (0 = all)")
      ->check(CLI::Range(0, 1 << 20));
  add_speculative_flags(cmd, o.speculative);
}

void add_speculative_flags(CLI::App& cmd, SpeculativeOptions& speculative) {
  using Drafter = SpeculativeOptions::Drafter;
  cmd.add_option_function<std::string>(
         "--speculative",
         [&speculative](const std::string& v) {
           std::string name = v;
           for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
           if (name == "ngram") speculative.drafter = Drafter::kNgram;
           else if (name == "assistant") speculative.drafter = Drafter::kAssistant;
           else throw CLI::ValidationError("--speculative", "'" + v + "' is not a drafter; expected ngram or assistant");
         },
         "speculative decoding: 'ngram' (prompt lookup) or 'assistant' (the package's drafter)")
      ->type_name("ngram|assistant");
  cmd.add_option("--draft-tokens", speculative.max_draft_tokens,
                 "tokens proposed per speculative step (default: the package's max_proposal_width)")
      ->check(CLI::Range(1, 1024));
}

std::shared_ptr<const Model> load_model(const ModelFlags& flags, double* load_ms) {
  LoadOptions options;
  options.execution_provider = flags.ep;
  options.intra_op_threads = flags.threads;
  options.allow_cpu_fallback = flags.allow_cpu_fallback;
  if (flags.device != 0 && flags.ep == "cpu")
    throw Error(ErrorCode::kInvalidArgument, "--device", "--device " + std::to_string(flags.device) +
                                                             " selects an accelerator: use it with --ep cuda");
  options.device_id = flags.device;
  options.max_context_length = flags.ctx_size;
  options.chat_template = flags.chat_template;
  options.workflow_inputs = flags.workflow_inputs;
  options.response_template = flags.response_template;
  options.dtype = flags.dtype;
  options.media_limits = flags.media_limits;
  if (isatty(STDERR_FILENO)) options.progress = show_progress;
  auto start = std::chrono::steady_clock::now();
  auto model = Model::load(flags.package, options);
  if (load_ms != nullptr)
    *load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return model;
}

}  // namespace ogai::cli
