#include "bench/bound_ort_loop.h"

#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace ogai::bench {
namespace {

struct Past {
  std::string input, output;
  ONNXTensorElementDataType type;
  std::int64_t heads = 0, dim = 0;
};

float to_float(const void* data, ONNXTensorElementDataType type, std::size_t i) {
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) return static_cast<const float*>(data)[i];
  return static_cast<float>(static_cast<const Ort::Float16_t*>(data)[i]);
}

}  // namespace

struct BoundOrtLoop::State {
  Ort::Session session{nullptr};
  Ort::MemoryInfo host = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  Ort::MemoryInfo device{nullptr};  // where pasts live: the host for cpu
  bool positions = false;
  std::vector<Past> pasts;
};

BoundOrtLoop::BoundOrtLoop(const std::filesystem::path& model, const std::string& ep, int threads)
    : state_(new State) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bound");
  Ort::SessionOptions so;
  if (threads > 0) so.SetIntraOpNumThreads(threads);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  if (ep == "cuda") {
    OrtCUDAProviderOptions cuda{};
    so.AppendExecutionProvider_CUDA(cuda);
    state_->device = Ort::MemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault);
  } else {
    state_->device = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  }
  state_->session = Ort::Session(env, model.c_str(), so);
  Ort::AllocatorWithDefaultOptions allocator;
  for (std::size_t i = 0; i < state_->session.GetInputCount(); ++i) {
    std::string name = state_->session.GetInputNameAllocated(i, allocator).get();
    if (name == "position_ids") state_->positions = true;
    if (name.rfind("past_key_values.", 0) != 0) continue;
    Ort::TypeInfo type = state_->session.GetInputTypeInfo(i);  // owns what info views
    auto info = type.GetTensorTypeAndShapeInfo();
    auto shape = info.GetShape();
    std::string output = "present." + name.substr(std::strlen("past_key_values."));
    state_->pasts.push_back({name, output, info.GetElementType(), shape[1], shape[3]});
  }
}

BoundOrtLoop::~BoundOrtLoop() { delete state_; }

BoundLoopResult BoundOrtLoop::run(const std::vector<std::int64_t>& prompt, int batch, int steps) {
  State& s = *state_;
  const auto b = static_cast<std::int64_t>(batch);
  std::vector<Ort::Value> past;
  std::vector<std::uint16_t> empty(1, 0);
  for (const auto& p : s.pasts) {
    std::int64_t shape[] = {b, p.heads, 0, p.dim};
    past.push_back(Ort::Value::CreateTensor(s.host, empty.data(), 0, shape, 4, p.type));
  }
  BoundLoopResult result;
  const auto n = static_cast<std::int64_t>(prompt.size());
  std::vector<std::int64_t> ids, mask(static_cast<std::size_t>(b * n), 1), pos;
  for (std::int64_t r = 0; r < b; ++r) ids.insert(ids.end(), prompt.begin(), prompt.end());
  for (std::int64_t r = 0; r < b; ++r)
    for (std::int64_t i = 0; i < n; ++i) pos.push_back(i);
  std::int64_t total = n;
  Ort::IoBinding binding(s.session);
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step <= steps; ++step) {
    const std::int64_t seq = step == 0 ? n : 1;
    std::int64_t ids_shape[] = {b, seq}, mask_shape[] = {b, total};
    Ort::Value ids_v = Ort::Value::CreateTensor<std::int64_t>(s.host, ids.data(), ids.size(), ids_shape, 2);
    Ort::Value mask_v = Ort::Value::CreateTensor<std::int64_t>(s.host, mask.data(), mask.size(), mask_shape, 2);
    Ort::Value pos_v = Ort::Value::CreateTensor<std::int64_t>(s.host, pos.data(), pos.size(), ids_shape, 2);
    binding.ClearBoundInputs();
    binding.ClearBoundOutputs();
    binding.BindInput("input_ids", ids_v);
    binding.BindInput("attention_mask", mask_v);
    if (s.positions) binding.BindInput("position_ids", pos_v);
    for (std::size_t i = 0; i < s.pasts.size(); ++i) binding.BindInput(s.pasts[i].input.c_str(), past[i]);
    binding.BindOutput("logits", s.host);
    for (const auto& p : s.pasts) binding.BindOutput(p.output.c_str(), s.device);
    s.session.Run(Ort::RunOptions{nullptr}, binding);
    std::vector<Ort::Value> outputs = binding.GetOutputValues();
    auto info = outputs[0].GetTensorTypeAndShapeInfo();
    const auto vocab = static_cast<std::size_t>(info.GetShape()[2]);
    const void* logits = outputs[0].GetTensorRawData();
    ids.clear();
    for (std::int64_t r = 0; r < b; ++r) {
      const std::size_t base = static_cast<std::size_t>((r * seq + seq - 1)) * vocab;
      std::size_t best = 0;
      for (std::size_t v = 1; v < vocab; ++v)
        if (to_float(logits, info.GetElementType(), base + v) > to_float(logits, info.GetElementType(), base + best))
          best = v;
      ids.push_back(static_cast<std::int64_t>(best));
      if (r > 0 && ids[static_cast<std::size_t>(r)] != ids[0]) result.rows_agree = false;
    }
    result.tokens.push_back(ids[0]);
    past.clear();
    for (std::size_t i = 1; i < outputs.size(); ++i) past.push_back(std::move(outputs[i]));
    pos.assign(static_cast<std::size_t>(b), total);
    ++total;
    mask.assign(static_cast<std::size_t>(b * total), 1);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ogai::bench
