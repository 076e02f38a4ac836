#include "workflow/input_specs.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <system_error>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "workflow/npy.h"
#include "workflow/tensor_json.h"

namespace ogai::workflow {
namespace {

constexpr std::uintmax_t kMaxMediaFileBytes = 256ull << 20;

// A media input (runtime role `media`, or a uint8 [bytes] contract) takes a file as it is.
bool is_media_input(const metadata::WorkflowInput& input) {
  if (input.role.kind == metadata::InputRole::Kind::kRuntime && input.role.role == "media") return true;
  return metadata::canonical_dtype(input.contract.dtype) == DataType::kUint8 && input.contract.rank == 1;
}

// `@FILE`: a NumPy file (by its magic), or for a media input the file's bytes as uint8 [size].
ort::Tensor read_file_input(const metadata::WorkflowInput& input, const std::string& file, const std::string& where) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) fail(ErrorCode::kNotFound, where, "cannot read '{}': {}", file, ec.message());
  const MappedFile mapped(file);
  const bool npy = mapped.size() >= 6 && std::memcmp(mapped.data(), "\x93NUMPY", 6) == 0;
  if (npy || !is_media_input(input)) return read_npy(file);
  if (size > kMaxMediaFileBytes)
    fail(ErrorCode::kInvalidArgument, where, "'{}' is {} bytes, over the {} a media input takes", file, size,
         kMaxMediaFileBytes);
  ort::Tensor t = ort::Tensor::allocate(DataType::kUint8, {static_cast<std::int64_t>(mapped.size())});
  if (mapped.size()) std::memcpy(t.raw_data(), mapped.data(), mapped.size());
  return t;
}

ort::Tensor parse_input(const metadata::Workflow& wf, const std::string& name, const std::string& text) {
  const std::string where = "--input " + name;
  const auto* input = find_input(wf, name);
  if (!input) fail(ErrorCode::kInvalidArgument, where, "is neither a workflow input nor an application alias");
  if (!text.empty() && text[0] == '@') return read_file_input(*input, text.substr(1), where);
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
