#include "generate/encoder.h"

#include "base/error.h"
#include "generate/index_feed.h"

namespace ogai::generate {
namespace {

std::string shape_text(const ort::Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const ort::PortInfo& require(const ort::Session& s, const std::string& name, bool input, const char* what) {
  const ort::PortInfo* port = input ? s.find_input(name) : s.find_output(name);
  if (!port)
    fail(ErrorCode::kInvalidPackage, s.origin(), "the encoder's {} '{}' is not {} of the graph", what, name,
         input ? "an input" : "an output");
  return *port;
}

}  // namespace

Encoder::Encoder(EncoderSpec spec, const ort::SessionOptions& options)
    : spec_(std::move(spec)), session_(ort::Session::open(spec_.artifact, options)) {
  OGAI_CHECK(spec_.outputs.size() == spec_.decoder_ports.size());
  std::size_t fed = 0;
  if (!spec_.features_input.empty()) {
    const auto& p = require(session_, spec_.features_input, true, "audio_features input");
    if (p.dtype != DataType::kFloat32 || p.shape.size() != 3)
      fail(ErrorCode::kUnsupported, session_.origin(), "the encoder's features input '{}' is {} of rank {}; ogai "
           "feeds float32 [batch, mels, frames]", p.name, dtype_name(p.dtype), p.shape.size());
    ++fed;
  }
  if (!spec_.token_input.empty()) {
    const auto& p = require(session_, spec_.token_input, true, "token_ids input");
    if (!is_index_dtype(p.dtype) || p.shape.size() != 2)
      fail(ErrorCode::kUnsupported, session_.origin(), "the encoder's token input '{}' is {} of rank {}; expected "
           "int32 or int64 [batch, n]", p.name, dtype_name(p.dtype), p.shape.size());
    ++fed;
  }
  if (!spec_.mask_input.empty()) {
    const auto& p = require(session_, spec_.mask_input, true, "attention_mask input");
    if (!is_index_dtype(p.dtype) || p.shape.size() != 2)
      fail(ErrorCode::kUnsupported, session_.origin(), "the encoder's mask input '{}' is {} of rank {}; expected "
           "int32 or int64 [batch, n]", p.name, dtype_name(p.dtype), p.shape.size());
    ++fed;
  }
  if (fed != session_.inputs().size())
    fail(ErrorCode::kUnsupported, session_.origin(), "the encoder graph has {} inputs; ogai feeds {} (features, or "
         "source ids and their mask)", session_.inputs().size(), fed);
  for (const auto& name : spec_.outputs) require(session_, name, false, "output");
}

const ort::PortInfo& Encoder::features_port() const { return *session_.find_input(spec_.features_input); }

void Encoder::check_output(std::size_t i, const ort::Tensor& produced) const {
  const ort::PortInfo& want = spec_.decoder_ports[i];
  ort::Shape expected = want.shape;
  bool ok = produced.dtype() == want.dtype && produced.shape().size() == expected.size() && !expected.empty();
  if (!expected.empty()) expected[0] = 1;
  for (std::size_t d = 0; ok && d < expected.size(); ++d) {
    if (expected[d] < 0) expected[d] = produced.shape()[d];
    ok = produced.shape()[d] == expected[d];
  }
  if (!ok)
    fail(ErrorCode::kInvalidPackage, spec_.outputs[i], "the encoder produced {} {}, expected {} {} (decoder input "
         "'{}', one request row)", dtype_name(produced.dtype()), shape_text(produced.shape()), dtype_name(want.dtype),
         shape_text(expected), want.name);
}

CrossStatePtr Encoder::run(std::vector<std::string> names, std::vector<ort::Tensor> feeds) const {
  std::vector<const ort::Tensor*> inputs;
  for (const auto& t : feeds) inputs.push_back(&t);
  std::vector<ort::Tensor> outputs(spec_.outputs.size());
  session_.run_into(names, inputs, spec_.outputs, outputs);
  ++runs_;
  auto state = std::make_shared<CrossState>();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    check_output(i, outputs[i]);
    state->tensors.push_back(std::move(outputs[i]));
  }
  return state;
}

CrossStatePtr Encoder::run_features(ort::Tensor features) const {
  if (spec_.features_input.empty())
    fail(ErrorCode::kUnsupported, "media", "this package's encoder reads source token ids, not audio");
  std::vector<ort::Tensor> feeds;
  feeds.push_back(std::move(features));
  return run({spec_.features_input}, std::move(feeds));
}

CrossStatePtr Encoder::run_tokens(std::span<const TokenId> ids) const {
  if (spec_.token_input.empty())
    fail(ErrorCode::kUnsupported, "prompt", "this package's encoder reads audio features, not token ids");
  if (ids.empty()) fail(ErrorCode::kInvalidArgument, "prompt", "the source text has no tokens");
  const auto n = static_cast<std::int64_t>(ids.size());
  std::vector<std::int64_t> wide;
  std::vector<std::int32_t> narrow;
  std::vector<std::int64_t> ones(ids.size(), 1);
  std::vector<std::string> names{spec_.token_input};
  std::vector<ort::Tensor> feeds;
  feeds.push_back(ort::Tensor::copy_of(ids_feed(session_.find_input(spec_.token_input)->dtype, {1, n}, ids, wide,
                                                spec_.token_input)));
  if (!spec_.mask_input.empty()) {
    names.push_back(spec_.mask_input);
    feeds.push_back(ort::Tensor::copy_of(
        index_feed(session_.find_input(spec_.mask_input)->dtype, {1, n}, ones, narrow, spec_.mask_input)));
  }
  return run(std::move(names), std::move(feeds));
}

}  // namespace ogai::generate
