#include "cli/workflow_generate.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>

#include "base/error.h"
#include "base/json_parse.h"
#include "cli/command.h"
#include "cli/workflow_inputs.h"
#include "tokenizer/tokenizer.h"
#include "workflow/interpreter.h"
#include "workflow/tensor_ops.h"

namespace ogai::cli {
namespace {

std::string tokens_output(const metadata::Workflow& wf, const std::string& origin) {
  for (const auto& [name, out] : wf.outputs)
    if (out.role == "tokens") return name;
  fail(ErrorCode::kUnsupported, origin, "the workflow has no output with role 'tokens' to generate from; use `ogai run`");
}

std::vector<std::int64_t> prompt_ids(const std::string& prompt, const std::optional<tokenizer::Tokenizer>& tok,
                                     bool add_special) {
  if (tok) {
    auto ids = tok->encode(prompt, add_special);
    return {ids.begin(), ids.end()};
  }
  nlohmann::json j;
  try {
    j = parse_json_bounded<nlohmann::json>(prompt, "--prompt");
  } catch (const Error&) {
    j = nullptr;
  }
  if (!j.is_array())
    fail(ErrorCode::kInvalidArgument, "--prompt", "this package has no tokenizer; give the prompt as a JSON array of ids");
  std::vector<std::int64_t> ids;
  for (const auto& v : j) {
    if (!v.is_number_integer()) fail(ErrorCode::kInvalidArgument, "--prompt", "{} is not a token id", v.dump());
    ids.push_back(v.get<std::int64_t>());
  }
  return ids;
}

void refuse_unsupported(const GenerationOptions& o) {
  if (!o.stop.empty()) fail(ErrorCode::kUnsupported, "--stop", "stop strings are not applied to interpreted workflows");
  if (o.logprobs) fail(ErrorCode::kUnsupported, "--logprobs", "log-probabilities are not reported for interpreted workflows");
  if (o.response_format) fail(ErrorCode::kUnsupported, "--format", "response formats are not applied to interpreted workflows");
}

workflow::RunRequest make_request(const GenerationOptions& o, std::vector<std::int64_t> ids) {
  workflow::RunRequest r;
  r.prompt_tokens = std::move(ids);
  if (o.max_new_tokens) r.max_new_tokens = *o.max_new_tokens;
  const auto& s = o.sampling;
  if (s.seed) r.seed = static_cast<std::int64_t>(*s.seed);
  if (s.do_sample.value_or(true)) {
    if (s.temperature) r.temperature = *s.temperature;
    if (s.top_k) r.top_k = *s.top_k;
    if (s.top_p) r.top_p = *s.top_p;
    if (s.min_p) r.min_p = *s.min_p;
  }
  r.stop_on_eos = !o.ignore_eos;
  return r;
}

std::string ids_text(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (auto id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

}  // namespace

bool is_interpreted_package(const std::string& package) {
  try {
    // An imported genai_config.json is a single decoder; importing it here would log twice.
    if (metadata::imports_genai_config(package)) return false;
    auto report = metadata::validate_package(package, {.document_only = true});
    return report.package && workflow::needs_interpreter(*report.package);
  } catch (const Error&) {
    return false;
  }
}

int run_workflow_generate(const WorkflowGenerateArgs& a) {
  refuse_unsupported(a.options);
  workflow::Program program = workflow::load_program(a.package);
  const std::string output = tokens_output(program.workflow(), program.package.files.metadata_file.string());
  std::optional<tokenizer::Tokenizer> tok;
  if (const auto& path = program.package.files.text.tokenizer_json; path && std::filesystem::exists(*path))
    tok = tokenizer::Tokenizer::load(*path);
  auto request = make_request(a.options, a.prompt_ids ? *a.prompt_ids : prompt_ids(a.prompt, tok, a.options.add_special_tokens));
  add_input_tensors(program.workflow(), a.inputs, request);
  const std::vector<std::int64_t> prompt = *request.prompt_tokens;
  std::vector<std::int64_t> ids;
  std::string printed;
  std::int64_t first_row = -1;
  auto text_of = [&](const std::vector<std::int64_t>& v) {
    if (!tok) return ids_text(v);
    std::vector<std::int32_t> narrow(v.begin(), v.end());
    return tok->decode(narrow);
  };
  auto on_emit = [&](const std::string& name, std::int64_t row, const ort::Tensor& chunk) {
    if (name != output) return;
    if (first_row < 0) first_row = row;
    if (row != first_row) fail(ErrorCode::kUnsupported, output, "cannot flatten a multi-row ragged output into one text");
    for (auto v : workflow::int_values(chunk, output)) ids.push_back(v);
    if (!a.stream || a.json) return;
    const std::string text = text_of(ids);
    if (text.size() >= printed.size() && text.compare(0, printed.size(), printed) == 0) {
      write_text(std::string_view(text).substr(printed.size()));
      std::fflush(stdout);
      printed = text;
    }
  };
  const auto result = workflow::run(program, std::move(request), on_emit);
  const std::string text = text_of(ids);
  if (a.json) {
    nlohmann::ordered_json j = {{"prompt_ids", prompt}, {"ids", ids}, {"text", text}, {"finish_reason", "length"},
                                {"timings", {{"runtime_ms", result.stats.total_seconds * 1e3},
                                             {"onnxruntime_ms", result.stats.ort_seconds * 1e3}}}};
    std::printf("%s\n", j.dump().c_str());
    return kExitOk;
  }
  if (!a.stream) write_text(text);
  else if (text.size() > printed.size() && text.compare(0, printed.size(), printed) == 0)
    write_text(std::string_view(text).substr(printed.size()));
  if (isatty(STDOUT_FILENO)) std::fputc('\n', stdout);
  return kExitOk;
}

}  // namespace ogai::cli
