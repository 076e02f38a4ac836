#include "workflow/input_specs.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "workflow/npy.h"
#include "workflow/tensor_json.h"

namespace ogai::workflow {
namespace {

// A uint8 rank-1 input takes a whole encoded file (a WAV, a PNG): the media inputs of the
// standard's preprocessing adapters, whose `encoded` port is uint8 [bytes].
bool is_encoded_media(const metadata::TensorContract& c) {
  return metadata::canonical_dtype(c.dtype) == DataType::kUint8 && c.rank == 1;
}

ort::Tensor media_bytes(const std::filesystem::path& file, const std::string& where) {
  constexpr std::uintmax_t kMaxBytes = 1ull << 30;  // an encoded file; decoders apply their own budgets
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (!ec && size > kMaxBytes)
    fail(ErrorCode::kInvalidArgument, where, "{} is {} bytes; a media input file is at most {} bytes", file.string(), size,
         kMaxBytes);
  const std::string bytes = read_file(file);
  return ort::Tensor::copy_of(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()),
                              {static_cast<std::int64_t>(bytes.size())});
}

ort::Tensor parse_input(const metadata::Workflow& wf, const std::string& name, const std::string& text) {
  const std::string where = "--input " + name;
  const auto* input = find_input(wf, name);
  if (!input) fail(ErrorCode::kInvalidArgument, where, "is neither a workflow input nor an application alias");
  if (!text.empty() && text[0] == '@') {
    const std::filesystem::path file = text.substr(1);
    if (file.extension() != ".npy" && is_encoded_media(input->contract)) return media_bytes(file, where);
    return read_npy(file);
  }
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
    if (request.tensors.count(name)) {
      const auto* input = find_input(wf, name);
      if (input && is_encoded_media(input->contract))  // docs/media.md, "One file per media input"
        fail(ErrorCode::kInvalidArgument, "--input " + name,
             "is given twice: an encoded media input holds one file (uint8 [bytes]), and the preprocess adapters "
             "(image-preprocess@1, audio-preprocess@1) decode one file per run, as the reference runtime does; run "
             "the workflow once per file");
      fail(ErrorCode::kInvalidArgument, "--input " + name, "is given twice");
    }
    request.tensors.emplace(name, parse_input(wf, name, spec.substr(eq + 1)));
  }
}

}  // namespace ogai::workflow
