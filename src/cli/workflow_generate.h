// `ogai generate` on a package whose workflow the native decode loop cannot stand in for (a loop,
// a branch, policy components, adapters): the model loads with its workflow (Model::load picks
// the interpreter) and generates like any other, streamed as the workflow emits.
//   Prompt: text, tokenized with the package tokenizer; without a tokenizer, a JSON array of ids;
//   or --prompt-ids (the ids as given, no BOS added).
//   Output: the decoded text (ids space-separated without a tokenizer); --json prints
//   {"prompt_ids","ids","text","finish_reason","timings":{"runtime_ms","onnxruntime_ms"}}, the
//   finish reason `stop` when the workflow ended on its own (EOS, its termination rule) or a
//   stop string, `length` when it ran its whole budget.
// `--input NAME=JSON` adds named tensors (the application inputs a workflow requires).
// --chat, --logprobs and response formats are refused (by the engine, naming why).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/model_flags.h"
#include "ogai/options.h"

namespace ogai::cli {

struct WorkflowGenerateArgs {
  ModelFlags model;  // with workflow_inputs: the --input specs
  std::string prompt;
  GenerationOptions options;
  bool stream = false, json = false;
  std::optional<std::vector<std::int32_t>> prompt_ids;  // --prompt-ids: fed as they are, `prompt` unused
};

// True when PKG's metadata has a workflow the interpreter must run (workflow::needs_interpreter);
// false when it has none, is unreadable or single-step (the native path then reports problems).
bool is_interpreted_package(const std::string& package);

int run_workflow_generate(const WorkflowGenerateArgs& args);

}  // namespace ogai::cli
