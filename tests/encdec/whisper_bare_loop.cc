#include "encdec/whisper_bare_loop.h"

#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace ogai::testing {
namespace {

std::string layer(std::string pattern, int index) {
  return pattern.replace(pattern.find("%d"), 2, std::to_string(index));
}

}  // namespace

struct WhisperBareLoop::State {
  Ort::Env env{ORT_LOGGING_LEVEL_WARNING, "whisper-bare-loop"};
  Ort::SessionOptions options;
  std::unique_ptr<Ort::Session> encoder, decoder;
  nlohmann::json config;
  int layers = 0;
};

WhisperBareLoop::WhisperBareLoop(const std::filesystem::path& folder) : state_(std::make_unique<State>()) {
  std::ifstream in(folder / "genai_config.json");
  state_->config = nlohmann::json::parse(in);
  const auto& model = state_->config["model"];
  state_->options.SetIntraOpNumThreads(1);
  state_->encoder = std::make_unique<Ort::Session>(
      state_->env, (folder / model["encoder"]["filename"].get<std::string>()).c_str(), state_->options);
  state_->decoder = std::make_unique<Ort::Session>(
      state_->env, (folder / model["decoder"]["filename"].get<std::string>()).c_str(), state_->options);
  state_->layers = model["decoder"]["num_hidden_layers"].get<int>();
}

WhisperBareLoop::~WhisperBareLoop() = default;

std::vector<std::int32_t> WhisperBareLoop::greedy(const std::vector<float>& features,
                                                  const std::vector<std::int64_t>& shape,
                                                  const std::vector<std::int32_t>& prompt, int steps,
                                                  const Pick& pick) {
  State& s = *state_;
  const auto& enc = s.config["model"]["encoder"];
  const auto& dec = s.config["model"]["decoder"];
  auto mem = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::vector<float> feats = features;
  Ort::Value feature_value =
      Ort::Value::CreateTensor<float>(mem, feats.data(), feats.size(), shape.data(), shape.size());
  std::vector<std::string> enc_out_names;
  for (int l = 0; l < s.layers; ++l) {
    enc_out_names.push_back(layer(enc["outputs"]["cross_present_key_names"], l));
    enc_out_names.push_back(layer(enc["outputs"]["cross_present_value_names"], l));
  }
  std::vector<const char*> enc_out;
  for (const auto& n : enc_out_names) enc_out.push_back(n.c_str());
  const std::string features_name = enc["inputs"]["audio_features"];
  const char* enc_in[] = {features_name.c_str()};
  std::vector<Ort::Value> cross = s.encoder->Run(Ort::RunOptions{}, enc_in, &feature_value, 1, enc_out.data(), enc_out.size());

  // Decoder: input_ids, self pasts (empty), cross pasts.
  auto ids_info = s.decoder->GetInputTypeInfo(0).GetTensorTypeAndShapeInfo();
  const bool int64_ids = ids_info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  std::vector<std::string> in_names{dec["inputs"]["input_ids"].get<std::string>()};
  std::vector<std::string> out_names{dec["outputs"]["logits"].get<std::string>()};
  for (int l = 0; l < s.layers; ++l) {
    in_names.push_back(layer(dec["inputs"]["past_key_names"], l));
    in_names.push_back(layer(dec["inputs"]["past_value_names"], l));
    out_names.push_back(layer(dec["outputs"]["present_key_names"], l));
    out_names.push_back(layer(dec["outputs"]["present_value_names"], l));
  }
  for (int l = 0; l < s.layers; ++l) {
    in_names.push_back(layer(dec["inputs"]["cross_past_key_names"], l));
    in_names.push_back(layer(dec["inputs"]["cross_past_value_names"], l));
  }
  std::vector<const char*> in_c, out_c;
  for (const auto& n : in_names) in_c.push_back(n.c_str());
  for (const auto& n : out_names) out_c.push_back(n.c_str());
  const auto cross_shape = cross[0].GetTensorTypeAndShapeInfo().GetShape();  // [1, heads, enc, head]
  std::vector<std::int64_t> empty_shape{1, cross_shape[1], 0, cross_shape[3]};
  std::vector<Ort::Value> pasts;
  static float no_data = 0;
  for (int i = 0; i < 2 * s.layers; ++i)
    pasts.push_back(Ort::Value::CreateTensor<float>(mem, &no_data, 0, empty_shape.data(), empty_shape.size()));

  std::vector<std::int32_t> tokens = prompt, out;
  std::vector<std::int32_t> ids32;
  std::vector<std::int64_t> ids64;
  for (int step = 0; step < steps; ++step) {
    ids32.assign(tokens.begin(), tokens.end());
    ids64.assign(tokens.begin(), tokens.end());
    std::vector<std::int64_t> ids_shape{1, static_cast<std::int64_t>(tokens.size())};
    std::vector<Ort::Value> inputs;
    if (int64_ids)
      inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, ids64.data(), ids64.size(), ids_shape.data(), 2));
    else
      inputs.push_back(Ort::Value::CreateTensor<std::int32_t>(mem, ids32.data(), ids32.size(), ids_shape.data(), 2));
    for (auto& p : pasts) inputs.push_back(std::move(p));
    for (auto& c : cross) {
      auto info = c.GetTensorTypeAndShapeInfo();
      auto shape = info.GetShape();
      inputs.push_back(Ort::Value::CreateTensor<float>(mem, c.GetTensorMutableData<float>(), info.GetElementCount(),
                                                       shape.data(), shape.size()));
    }
    std::vector<Ort::Value> results =
        s.decoder->Run(Ort::RunOptions{}, in_c.data(), inputs.data(), inputs.size(), out_c.data(), out_c.size());
    auto logits_shape = results[0].GetTensorTypeAndShapeInfo().GetShape();
    const std::int64_t vocab = logits_shape[2];
    const float* last = results[0].GetTensorData<float>() + (logits_shape[1] - 1) * vocab;
    const auto next = pick ? pick(last, vocab) : static_cast<std::int32_t>(std::max_element(last, last + vocab) - last);
    out.push_back(next);
    tokens.assign(1, next);
    pasts.clear();
    for (std::size_t i = 1; i < results.size(); ++i) pasts.push_back(std::move(results[i]));
  }
  return out;
}

}  // namespace ogai::testing
