// `ogai generate` on a package whose workflow the native decode loop cannot stand in for (a loop,
// a branch, policy components, adapters): the prompt runs through the workflow interpreter and
// the chunks emitted into its `tokens` output are printed as they are emitted.
//   Prompt: text, tokenized with the package tokenizer; without a tokenizer, a JSON array of ids;
//   or --prompt-ids (the ids as given, no BOS added).
//   Output: the decoded text (ids space-separated without a tokenizer); --json prints
//   {"prompt_ids","ids","text","finish_reason":"length","timings":{"runtime_ms","onnxruntime_ms"}}.
// `--input NAME=JSON` adds named tensors (the application inputs a workflow requires).
// A multi-row output, stop strings, --chat, --logprobs and response formats are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ogai/options.h"

namespace ogai::cli {

struct WorkflowGenerateArgs {
  std::string package, prompt;
  std::optional<std::vector<std::int64_t>> prompt_ids;  // --prompt-ids: fed as they are, `prompt` unused
  GenerationOptions options;
  std::vector<std::string> inputs;  // --input NAME=JSON|@FILE.npy (cli/workflow_inputs.h)
  bool stream = false, json = false;
};

// True when PKG's metadata has a workflow the interpreter must run (workflow::needs_interpreter);
// false when it has none, is unreadable or single-step (the native path then reports problems).
bool is_interpreted_package(const std::string& package);

int run_workflow_generate(const WorkflowGenerateArgs& args);

}  // namespace ogai::cli
