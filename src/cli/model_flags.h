// Flags shared by the commands that load a package and generate: the execution provider,
// threads, and the sampling / stopping options, declared once (one table drives parsing and help).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "ogai/ogai.h"

namespace ogai::cli {

struct ModelFlags {
  std::string package;
  std::string ep = "cpu";
  int threads = 0;
  bool allow_cpu_fallback = false;
  std::string chat_template;  // --chat-template FILE: instead of the package's template
  std::vector<std::string> workflow_inputs;  // --input NAME=JSON|@FILE.npy (LoadOptions::workflow_inputs)
  int device = 0;                  // --device N: the accelerator (with --ep cuda)
  std::int64_t ctx_size = 0;       // --ctx-size N: cap on the context; 0 = the package's
  std::string response_template;  // --response-template FILE: parses replies (docs/tool_calls.md)
  std::string dtype;              // --dtype NAME: an Optimum folder's graph variant (LoadOptions::dtype)
  MediaLimits media_limits;       // --max-image-pixels, ... (LoadOptions::media_limits; media_limit_flags.h)
};

struct SamplingFlags {
  GenerationOptions options;
  bool random_seed = false;  // --seed -1: options.sampling.seed was drawn at random
};

// Adds PKG (positional), --ep, --threads, --device, --ctx-size, --allow-cpu-fallback, --dtype.
void add_model_flags(CLI::App& cmd, ModelFlags& flags);
// Adds --chat-template FILE (the commands that render chats: generate, chat, serve).
void add_chat_template_flag(CLI::App& cmd, ModelFlags& flags);
// Adds --max-new-tokens, one flag per ogai/sampling_fields.h entry (--temperature, --top-k, ...),
// --seed, --stop (repeatable), --ignore-eos, --truncate-prompt, --prefill-chunk, --speculative,
// --draft-tokens.
void add_sampling_flags(CLI::App& cmd, SamplingFlags& flags);

// Adds --speculative ngram|assistant and --draft-tokens N (generate, serve).
void add_speculative_flags(CLI::App& cmd, SpeculativeOptions& speculative);

// Loads the package, showing progress on stderr when it is a terminal.
std::shared_ptr<const Model> load_model(const ModelFlags& flags, double* load_ms = nullptr);

}  // namespace ogai::cli
