#include "importer/ortgenai_loop.h"

#include <onnxruntime_cxx_api.h>

#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ogai::testing {
namespace {

using json = nlohmann::json;

// "past_key_values.%d.key" matched against a name: the layer index, or nullopt.
std::optional<int> match(const std::string& pattern, const std::string& name) {
  const auto at = pattern.find("%d");
  if (at == std::string::npos) return std::nullopt;
  const std::string prefix = pattern.substr(0, at), suffix = pattern.substr(at + 2);
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(digits);
}

std::string named(const json& section, const char* key, const char* fallback) {
  return section.contains(key) ? section[key].get<std::string>() : fallback;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal
      int e = -1;
      std::uint32_t m = mant;
      do { ++e; m <<= 1; } while ((m & 0x400) == 0);
      bits = sign | ((112 - e) << 23) | ((m & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

struct GenaiBareLoop::State {
  Ort::Session session{nullptr};
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> inputs, outputs;
  std::string ids, mask, positions, logits;
  // past input name -> the present output that feeds it next step
  std::map<std::string, std::string> present_of;
};

GenaiBareLoop::GenaiBareLoop(const std::filesystem::path& folder) : state_(std::make_unique<State>()) {
  std::ifstream in(folder / "genai_config.json");
  const json config = json::parse(in);
  const json& decoder = config["model"]["decoder"];
  const json ins = decoder.value("inputs", json::object()), outs = decoder.value("outputs", json::object());
  State& s = *state_;
  s.ids = named(ins, "input_ids", "input_ids");
  s.mask = named(ins, "attention_mask", "attention_mask");
  s.positions = named(ins, "position_ids", "position_ids");
  s.logits = named(outs, "logits", "logits");
  static Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "genai_bare_loop");
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  s.session = Ort::Session(env, (folder / decoder["filename"].get<std::string>()).c_str(), so);
  for (std::size_t i = 0; i < s.session.GetInputCount(); ++i)
    s.inputs.push_back(s.session.GetInputNameAllocated(i, s.allocator).get());
  for (std::size_t i = 0; i < s.session.GetOutputCount(); ++i)
    s.outputs.push_back(s.session.GetOutputNameAllocated(i, s.allocator).get());
  // (past template, present template) pairs the config names.
  const std::pair<std::string, std::string> pairs[] = {
      {named(ins, "past_key_names", "past_key_values.%d.key"), named(outs, "present_key_names", "present.%d.key")},
      {named(ins, "past_value_names", "past_key_values.%d.value"),
       named(outs, "present_value_names", "present.%d.value")},
      {named(ins, "past_names", ""), named(outs, "present_names", "")},
      {named(ins, "past_conv_names", ""), named(outs, "present_conv_names", "")}};
  for (const std::string& input : s.inputs)
    for (const auto& [past, present] : pairs)
      if (auto layer = match(past, input)) {
        std::string out = present;
        out.replace(out.find("%d"), 2, std::to_string(*layer));
        s.present_of[input] = out;
      }
}

GenaiBareLoop::~GenaiBareLoop() = default;

std::vector<std::int32_t> GenaiBareLoop::greedy(const std::vector<std::int32_t>& prompt, int steps) {
  State& s = *state_;
  Ort::MemoryInfo mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::map<std::string, Ort::Value> pasts;  // zeros at first: batch 1, sequence 0
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    if (!s.present_of.count(s.inputs[i])) continue;
    Ort::TypeInfo type_info = s.session.GetInputTypeInfo(i);  // owns what `info` views
    auto info = type_info.GetTensorTypeAndShapeInfo();
    std::vector<std::int64_t> shape = info.GetShape();
    std::vector<const char*> symbols(shape.size());
    info.GetSymbolicDimensions(symbols.data(), symbols.size());
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (shape[d] < 0) shape[d] = std::string(symbols[d]).find("batch") != std::string::npos ? 1 : 0;
    Ort::Value zeros = Ort::Value::CreateTensor(s.allocator, shape.data(), shape.size(), info.GetElementType());
    const std::size_t element = info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 ? 2 : 4;
    std::memset(zeros.GetTensorMutableRawData(), 0, zeros.GetTensorTypeAndShapeInfo().GetElementCount() * element);
    pasts.emplace(s.inputs[i], std::move(zeros));
  }
  std::vector<std::int64_t> tokens(prompt.begin(), prompt.end());
  std::vector<std::int32_t> generated;
  std::int64_t past = 0;
  for (int step = 0; step <= steps && static_cast<int>(generated.size()) < steps; ++step) {
    const std::vector<std::int64_t> fresh = step == 0 ? tokens : std::vector<std::int64_t>{tokens.back()};
    const auto n = static_cast<std::int64_t>(fresh.size());
    std::vector<std::int64_t> ids64 = fresh, mask64(static_cast<std::size_t>(past + n), 1), pos64;
    for (std::int64_t p = past; p < past + n; ++p) pos64.push_back(p);
    std::vector<std::int32_t> ids32(ids64.begin(), ids64.end()), mask32(mask64.begin(), mask64.end()),
        pos32(pos64.begin(), pos64.end());
    std::vector<Ort::Value> feeds;
    std::vector<const char*> in_names;
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      const std::string& name = s.inputs[i];
      in_names.push_back(name.c_str());
      if (auto it = pasts.find(name); it != pasts.end()) {
        feeds.push_back(std::move(it->second));
        continue;
      }
      std::vector<std::int64_t>* v64 =
          name == s.ids ? &ids64 : name == s.mask ? &mask64 : name == s.positions ? &pos64 : nullptr;
      std::vector<std::int32_t>* v32 = name == s.ids ? &ids32 : name == s.mask ? &mask32 : &pos32;
      if (v64 == nullptr) throw std::runtime_error("the bare loop cannot feed graph input '" + name + "'");
      const std::int64_t shape[] = {1, static_cast<std::int64_t>(v64->size())};
      Ort::TypeInfo type_info = s.session.GetInputTypeInfo(i);
      const auto type = type_info.GetTensorTypeAndShapeInfo().GetElementType();
      if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32)
        feeds.push_back(Ort::Value::CreateTensor<std::int32_t>(mem, v32->data(), v32->size(), shape, 2));
      else
        feeds.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, v64->data(), v64->size(), shape, 2));
    }
    std::vector<const char*> out_names;
    for (const auto& o : s.outputs) out_names.push_back(o.c_str());
    auto results = s.session.Run(Ort::RunOptions{nullptr}, in_names.data(), feeds.data(), feeds.size(),
                                 out_names.data(), out_names.size());
    pasts.clear();
    std::optional<std::size_t> logits_at;
    for (std::size_t o = 0; o < s.outputs.size(); ++o) {
      if (s.outputs[o] == s.logits) logits_at = o;
      for (const auto& [input, present] : s.present_of)
        if (present == s.outputs[o]) pasts.emplace(input, std::move(results[o]));
    }
    if (!logits_at) throw std::runtime_error("no logits output '" + s.logits + "'");
    const Ort::Value& logits = results[*logits_at];
    const auto info = logits.GetTensorTypeAndShapeInfo();
    const auto shape = info.GetShape();  // [1, n, vocab]
    if (shape.size() != 3 || shape[0] != 1 || shape[1] != n)
      throw std::runtime_error("logits shape does not match the batch-1 feed of " + std::to_string(n) + " tokens");
    const std::int64_t vocab = shape[2];
    const std::int64_t offset = (n - 1) * vocab;
    std::int32_t best = 0;
    float best_value = 0;
    for (std::int64_t v = 0; v < vocab; ++v) {
      const float x = info.GetElementType() == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16
                          ? half_to_float(logits.GetTensorData<std::uint16_t>()[offset + v])
                          : logits.GetTensorData<float>()[offset + v];
      if (v == 0 || x > best_value) best = static_cast<std::int32_t>(v), best_value = x;
    }
    generated.push_back(best);
    tokens.push_back(best);
    past += n;
  }
  return generated;
}

}  // namespace ogai::testing
