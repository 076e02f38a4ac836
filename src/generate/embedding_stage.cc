#include "generate/embedding_stage.h"

#include <algorithm>

#include "base/error.h"
#include "generate/index_feed.h"

namespace ogai::generate {
namespace {

const ort::PortInfo& port(const ort::Session& s, const std::string& name, bool input, const char* what) {
  const ort::PortInfo* p = input ? s.find_input(name) : s.find_output(name);
  if (p == nullptr)
    fail(ErrorCode::kInvalidPackage, s.origin(), "the embedding's {} port '{}' is not {} of the graph", what, name,
         input ? "an input" : "an output");
  return *p;
}

std::string shape_text(const ort::Shape& shape) { return ort::shape_string(shape); }

}  // namespace

EmbeddingStage::EmbeddingStage(EmbeddingSpec spec, const ort::SessionOptions& options, std::int64_t hidden,
                               DataType embeds_dtype, SessionPreload* preload)
    : spec_(std::move(spec)),
      session_(open_graph(preload, spec_.artifact, options)),
      embeds_dtype_(embeds_dtype),
      hidden_(hidden) {
  const std::string& origin = session_.origin();
  const auto& ids = port(session_, spec_.ids_input, true, "token ids");
  if (!is_index_dtype(ids.dtype) || ids.shape.size() != 2)
    fail(ErrorCode::kInvalidPackage, origin, "the embedding's ids port '{}' is {} of rank {}, expected int32 or int64 "
         "[batch, sequence]", ids.name, dtype_name(ids.dtype), ids.shape.size());
  ids_dtype_ = ids.dtype;
  const auto& out = port(session_, spec_.embeds_output, false, "inputs_embeds");
  if (out.dtype != embeds_dtype_)
    fail(ErrorCode::kInvalidPackage, origin, "the embedding's output '{}' is {}, but the decoder's inputs_embeds is {}",
         out.name, dtype_name(out.dtype), dtype_name(embeds_dtype_));
  if (hidden_ <= 0 && out.shape.size() == 3 && out.shape[2] > 0) hidden_ = out.shape[2];
  input_names_.push_back(spec_.ids_input);
  for (const auto& name : spec_.feature_inputs) {
    const auto& f = port(session_, name, true, "feature");
    if (f.shape.size() != 2 && f.shape.size() != 3)
      fail(ErrorCode::kUnsupported, origin, "the embedding's feature port '{}' has rank {}; ogai feeds [rows, width] "
           "or [1, rows, width]", name, f.shape.size());
    Feature feature{f.dtype, f.shape.back() > 0 ? f.shape.back() : hidden_, static_cast<int>(f.shape.size())};
    if (feature.width <= 0)
      fail(ErrorCode::kUnsupported, origin, "the embedding's feature port '{}' has no fixed width (last dim) and the "
           "decoder's inputs_embeds none either", name);
    features_.push_back(feature);
    input_names_.push_back(name);
  }
  if (session_.inputs().size() != input_names_.size()) {
    std::string unfed;
    for (const auto& in : session_.inputs())
      if (std::find(input_names_.begin(), input_names_.end(), in.name) == input_names_.end())
        unfed += (unfed.empty() ? "'" : ", '") + in.name + "'";
    fail(ErrorCode::kUnsupported, origin, "embedding inputs {} are bound to nothing the engine can fill", unfed);
  }
  output_names_.push_back(spec_.embeds_output);
}

ort::Tensor EmbeddingStage::embed(const ort::Tensor& ids, const FeatureRows* rows, double& seconds) const {
  const auto& shape = ids.shape();
  OGAI_CHECK(shape.size() == 2);
  std::vector<ort::Tensor> feeds;
  feeds.reserve(features_.size());
  for (std::size_t i = 0; i < features_.size(); ++i) {
    const Feature& f = features_[i];
    const std::int64_t n = rows ? rows->rows[i] : 0;
    void* data = rows && n > 0 ? const_cast<std::uint8_t*>(rows->bytes[i].data()) : nullptr;
    ort::Shape s = f.rank == 2 ? ort::Shape{n, f.width} : ort::Shape{1, n, f.width};
    feeds.push_back(ort::Tensor::view(f.dtype, std::move(s), data));
  }
  std::vector<const ort::Tensor*> inputs{&ids};
  for (const auto& t : feeds) inputs.push_back(&t);
  std::vector<ort::Tensor> outputs(1);
  seconds += session_.run_into(input_names_, inputs, output_names_, outputs);
  const ort::Tensor& out = outputs[0];
  const ort::Shape expected{shape[0], shape[1], hidden_};
  if (out.dtype() != embeds_dtype_ || out.shape().size() != 3 || out.shape()[0] != shape[0] ||
      out.shape()[1] != shape[1] || (hidden_ > 0 && out.shape()[2] != hidden_))
    fail(ErrorCode::kInvalidPackage, session_.origin(),
         "the embedding returned '{}' as {} {}, expected {} {} for ids {} (a graph that ignores its inputs cannot run)",
         spec_.embeds_output, dtype_name(out.dtype()), shape_text(out.shape()), dtype_name(embeds_dtype_),
         shape_text(expected), shape_text(shape));
  return std::move(outputs[0]);
}

}  // namespace ogai::generate
