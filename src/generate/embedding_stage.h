// EmbeddingStage: the embedding graph of a multimodal package (metadata/multimodal_abi.h), run in
// front of a decoder whose token input is inputs_embeds. It turns the ids the decode loop builds
// ([batch, seq], int32/int64 as the graph declares) and the media feature rows of those positions
// into inputs_embeds [batch, seq, hidden]. Without media (decode steps, text-only prompts) each
// feature input gets zero rows, as ONNX Runtime GenAI feeds it.
//
// Feature ports are [rows, width] (ONNX Runtime GenAI's shape) or [1, rows, width] (the
// standard's catalogue); `width` is the port's fixed last dim, or the decoder's hidden size. What
// the graph returns is checked (dtype and [batch, seq, hidden]) and a mismatch refused naming the
// output and the shape expected: graphs with no nodes that return fixed initializers are refused
// here. Immutable after construction; embed() is thread-safe (the ORT session is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "generate/decoder_spec.h"
#include "generate/session_preload.h"
#include "ort/session.h"
#include "ort/tensor.h"

namespace ogai::generate {

// Feature rows for the soft tokens of one run, per feature port (EmbeddingSpec::feature_inputs).
struct FeatureRows {
  std::vector<std::vector<std::uint8_t>> bytes;  // per port: [rows, width] row-major, the port's dtype
  std::vector<std::int64_t> rows;                // per port
};

class EmbeddingStage {
 public:
  // `hidden` and `embeds_dtype`: the decoder's inputs_embeds port (last dim, -1 when symbolic).
  // `preload` (optional) holds the session when it was started in parallel (session_preload.h).
  EmbeddingStage(EmbeddingSpec spec, const ort::SessionOptions& options, std::int64_t hidden, DataType embeds_dtype,
                 SessionPreload* preload = nullptr);

  const EmbeddingSpec& spec() const { return spec_; }
  DataType ids_dtype() const { return ids_dtype_; }
  std::size_t ports() const { return spec_.feature_inputs.size(); }
  DataType feature_dtype(std::size_t port) const { return features_[port].dtype; }
  std::int64_t feature_width(std::size_t port) const { return features_[port].width; }

  // inputs_embeds [batch, seq, hidden] on the host for `ids` [batch, seq]; `rows` null: no media.
  // Adds the seconds spent in ONNX Runtime to `seconds`.
  ort::Tensor embed(const ort::Tensor& ids, const FeatureRows* rows, double& seconds) const;

 private:
  struct Feature {
    DataType dtype = DataType::kUndefined;
    std::int64_t width = 0;
    int rank = 2;
  };

  EmbeddingSpec spec_;
  ort::Session session_;
  DataType ids_dtype_ = DataType::kInt64;
  DataType embeds_dtype_ = DataType::kFloat32;
  std::int64_t hidden_ = -1;
  std::vector<Feature> features_;
  std::vector<std::string> input_names_, output_names_;
};

}  // namespace ogai::generate
