#include "workflow/input_specs.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_parse.h"
#include "workflow/npy.h"
#include "workflow/tensor_json.h"

namespace ogai::workflow {
namespace {

ort::Tensor parse_input(const metadata::Workflow& wf, const std::string& name, const std::string& text) {
  const std::string where = "--input " + name;
  const auto* input = find_input(wf, name);
  if (!input) fail(ErrorCode::kInvalidArgument, where, "is neither a workflow input nor an application alias");
  if (!text.empty() && text[0] == '@') return read_npy(text.substr(1));
  nlohmann::json value;
  try {
    value = parse_json_bounded<nlohmann::json>(text, where);
  } catch (const Error& e) {
    fail(ErrorCode::kInvalidArgument, where, "is not JSON: {}", e.message());
  }
  return tensor_from_json(value, input->contract, where);
}

}  // namespace

void add_input_tensors(const metadata::Workflow& wf, const std::vector<std::string>& specs, RunRequest& request) {
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(ErrorCode::kInvalidArgument, "--input", "takes NAME=JSON or NAME=@FILE.npy, got '{}'", spec);
    const std::string name = spec.substr(0, eq);
    if (request.tensors.count(name)) fail(ErrorCode::kInvalidArgument, "--input " + name, "is given twice");
    request.tensors.emplace(name, parse_input(wf, name, spec.substr(eq + 1)));
  }
}

}  // namespace ogai::workflow
