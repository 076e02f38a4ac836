#include "cli/workflow_generate.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>

#include "base/error.h"
#include "base/json_parse.h"
#include "cli/command.h"
#include "metadata/package.h"
#include "ogai/finish_reason.h"
#include "ogai/model.h"
#include "workflow/program.h"

namespace ogai::cli {
namespace {

// Without a tokenizer the prompt is a JSON array of ids.
std::vector<std::int32_t> prompt_ids(const Model& model, const std::string& prompt, bool add_special) {
  if (model.info().has_tokenizer) return model.tokenize(prompt, add_special);
  nlohmann::json j;
  try {
    j = parse_json_bounded<nlohmann::json>(prompt, "--prompt");
  } catch (const Error&) {
    j = nullptr;
  }
  if (!j.is_array())
    fail(ErrorCode::kInvalidArgument, "--prompt", "this package has no tokenizer; give the prompt as a JSON array of ids");
  std::vector<std::int32_t> ids;
  for (const auto& v : j) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > INT32_MAX)
      fail(ErrorCode::kInvalidArgument, "--prompt", "{} is not a token id", v.dump());
    ids.push_back(v.get<std::int32_t>());
  }
  return ids;
}

}  // namespace

bool is_interpreted_package(const std::string& package) {
  try {
    // An imported genai_config.json is a single decoder; importing it here would log twice.
    if (metadata::imports_genai_config(package) || metadata::imports_optimum_export(package)) return false;
    auto report = metadata::validate_package(package, {.document_only = true, .optimum_dtype = {}});
    return report.package && workflow::needs_interpreter(*report.package);
  } catch (const Error&) {
    return false;
  }
}

int run_workflow_generate(const WorkflowGenerateArgs& a) {
  auto model = load_model(a.model);
  const auto ids = a.prompt_ids ? *a.prompt_ids : prompt_ids(*model, a.prompt, a.options.add_special_tokens);
  StreamCallback on_token;
  if (a.stream && !a.json)
    on_token = [](const StreamEvent& e) {  // each event carries only its new text
      write_text(e.text);
      std::fflush(stdout);
      return true;
    };
  const GenerationResult result = model->generate(std::span<const std::int32_t>(ids), a.options, on_token);
  if (a.json) {
    nlohmann::ordered_json j = {{"prompt_ids", result.prompt_ids}, {"ids", result.ids}, {"text", result.text},
                                {"finish_reason", finish_reason_name(result.finish_reason)},
                                {"timings", {{"runtime_ms", result.timings.runtime_ms},
                                             {"onnxruntime_ms", result.timings.onnxruntime_ms}}}};
    std::printf("%s\n", j.dump().c_str());
    return kExitOk;
  }
  if (!a.stream) write_text(result.text);
  if (isatty(STDOUT_FILENO)) std::fputc('\n', stdout);
  return kExitOk;
}

}  // namespace ogai::cli
