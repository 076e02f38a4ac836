#include "bench/bare_ort_loop.h"

#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace ogai::bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct BareOrtLoop::State {
  Ort::Session session{nullptr};
  Ort::MemoryInfo mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::vector<std::string> names = {"input_ids", "attention_mask", "position_ids"};
  std::vector<std::string> out_names = {"logits"};
  std::vector<const char*> in_c, out_c;
  int layers = 0;
  std::int64_t kv_heads = 0, head_dim = 0;
};

BareOrtLoop::BareOrtLoop(const std::filesystem::path& model, int layers, std::int64_t kv_heads, std::int64_t head_dim)
    : state_(new State) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bare");
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  state_->session = Ort::Session(env, model.c_str(), so);
  state_->layers = layers;
  state_->kv_heads = kv_heads;
  state_->head_dim = head_dim;
  for (int l = 0; l < layers; ++l)
    for (const char* kind : {"key", "value"}) {
      state_->names.push_back("past_key_values." + std::to_string(l) + "." + kind);
      state_->out_names.push_back("present." + std::to_string(l) + "." + kind);
    }
  for (auto& n : state_->names) state_->in_c.push_back(n.c_str());
  for (auto& n : state_->out_names) state_->out_c.push_back(n.c_str());
}

BareOrtLoop::~BareOrtLoop() { delete state_; }

BareLoopResult BareOrtLoop::run(const std::vector<std::int64_t>& prompt, int steps) {
  auto& session = state_->session;
  auto& mem = state_->mem;
  auto& in_c = state_->in_c;
  auto& out_c = state_->out_c;
  std::vector<Ort::Value> past;
  float empty = 0;
  std::int64_t empty_shape[] = {1, state_->kv_heads, 0, state_->head_dim};
  for (int i = 0; i < 2 * state_->layers; ++i)
    past.push_back(Ort::Value::CreateTensor<float>(mem, &empty, 0, empty_shape, 4));

  BareLoopResult result;
  std::vector<std::int64_t> ids = prompt, mask(prompt.size(), 1), pos(prompt.size());
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<std::int64_t>(i);
  auto start = std::chrono::steady_clock::now();
  for (int step = 0; step <= steps; ++step) {
    std::int64_t seq = static_cast<std::int64_t>(ids.size());
    std::int64_t ids_shape[] = {1, seq}, mask_shape[] = {1, static_cast<std::int64_t>(mask.size())};
    std::vector<Ort::Value> inputs;
    inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, ids.data(), ids.size(), ids_shape, 2));
    inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, mask.data(), mask.size(), mask_shape, 2));
    inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, pos.data(), pos.size(), ids_shape, 2));
    for (auto& p : past) inputs.push_back(std::move(p));
    auto run_start = std::chrono::steady_clock::now();
    auto outputs = session.Run(Ort::RunOptions{nullptr}, in_c.data(), inputs.data(), inputs.size(), out_c.data(),
                               out_c.size());
    if (step > 0) result.decode_run_seconds += seconds_since(run_start);
    const float* logits = outputs[0].GetTensorData<float>();
    auto vocab = outputs[0].GetTensorTypeAndShapeInfo().GetShape()[2];
    const float* last = logits + (seq - 1) * vocab;
    std::int64_t next = std::max_element(last, last + vocab) - last;
    past.clear();
    for (std::size_t i = 1; i < outputs.size(); ++i) past.push_back(std::move(outputs[i]));
    if (step == 0) {
      result.prefill_seconds = seconds_since(start);
      start = std::chrono::steady_clock::now();
    }
    result.tokens.push_back(next);
    if (step == steps) break;
    std::int64_t position = static_cast<std::int64_t>(mask.size());
    ids.assign(1, next);
    pos.assign(1, position);
    mask.push_back(1);
  }
  result.decode_seconds = seconds_since(start);
  return result;
}

}  // namespace ogai::bench
