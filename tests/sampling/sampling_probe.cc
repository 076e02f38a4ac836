// sampling_probe: runs ogai's sampling chain on cases read as JSON from stdin and prints the
// results as JSON, for differential tests against other implementations (hf_processors.cjs).
//   input:  [{"logits": [x or null for -inf, ...], "prompt": [ids], "generated": [ids],
//             "params": {"temperature": 0.7, "top_k": 5, "repetition_penalty": 1.3, ...}}, ...]
//   output: [{"processed": [x or null, ...], "distribution": [[id, p], ...], "greedy": id}, ...]
// "processed" is the dense logits after the processors and temperature; "distribution" the
// survivors of the warpers with their probabilities; "greedy" the do_sample=false choice.
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ogai/error.h"
#include "sampling/sampler.h"

namespace {

using nlohmann::json;
using ogai::sampling::Sampler;
using ogai::sampling::SamplingParams;

SamplingParams read_params(const json& j) {
  SamplingParams p;
  p.temperature = j.value("temperature", p.temperature);
  p.top_k = j.value("top_k", p.top_k);
  p.top_p = j.value("top_p", p.top_p);
  p.min_p = j.value("min_p", p.min_p);
  p.typical_p = j.value("typical_p", p.typical_p);
  p.repetition_penalty = j.value("repetition_penalty", p.repetition_penalty);
  p.frequency_penalty = j.value("frequency_penalty", p.frequency_penalty);
  p.presence_penalty = j.value("presence_penalty", p.presence_penalty);
  p.seed = 0;
  return p;
}

std::vector<float> read_logits(const json& j) {
  std::vector<float> x;
  for (const json& v : j) x.push_back(v.is_null() ? -INFINITY : v.get<float>());
  return x;
}

// Starts a sampler on the case's history: prompt, then each generated token accepted.
void replay(Sampler& sampler, const json& c) {
  sampler.reset(c.at("prompt").get<std::vector<ogai::TokenId>>());
  for (ogai::TokenId id : c.value("generated", std::vector<ogai::TokenId>{})) sampler.accept(id);
}

json run_case(const json& c) {
  const std::vector<float> logits = read_logits(c.at("logits"));
  SamplingParams params = read_params(c.at("params"));
  const auto vocab = static_cast<int64_t>(logits.size());
  Sampler sampler(params, vocab);
  replay(sampler, c);
  std::vector<float> row = logits;
  json distribution = json::array();
  for (const auto& cand : sampler.distribution(row)) distribution.push_back({cand.id, cand.p});
  json processed = json::array();
  for (float x : row) processed.push_back(std::isinf(x) && x < 0 ? json(nullptr) : json(x));
  params.do_sample = false;
  Sampler greedy(params, vocab);
  replay(greedy, c);
  row = logits;
  return {{"processed", processed}, {"distribution", distribution}, {"greedy", greedy.sample(row)}};
}

}  // namespace

int main() {
  try {
    json cases = json::parse(std::cin);
    json out = json::array();
    for (const json& c : cases) out.push_back(run_case(c));
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "sampling_probe: " << e.what() << "\n";
    return 1;
  }
}
