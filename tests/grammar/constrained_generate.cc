// constrained_generate: runs constrained generations through the public API for the Python
// validation test (schema_validation_test.py), loading each package once. Reads one JSON job per
// line on stdin:
//   {"package": DIR, "prompt": TEXT, "format": {"kind": "json_schema"|"json_object"|"regex"|"grammar",
//    "text": TEXT}, "temperature": F, "seed": N, "max_new_tokens": N, "speculative": "ngram"|null,
//    "batch": N (optional: N copies of the prompt through generate_batch),
//    "engine": [FORMAT...] (optional: one request per format submitted together to an ogai::Engine,
//    rows of one batch with different grammars)}
// and writes one JSON line per job: {"results": [{"text", "finish_reason"}...]} or {"error": TEXT}.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ogai/engine.h"
#include "ogai/ogai.h"

namespace {

ogai::ResponseFormat format_of(const nlohmann::json& f) {
  const std::string kind = f.at("kind");
  ogai::ResponseFormat out;
  out.kind = kind == "json_schema" ? ogai::ResponseFormat::Kind::kJsonSchema
             : kind == "regex"     ? ogai::ResponseFormat::Kind::kRegex
             : kind == "grammar"   ? ogai::ResponseFormat::Kind::kGrammar
                                   : ogai::ResponseFormat::Kind::kJsonObject;
  out.text = f.value("text", "");
  return out;
}

nlohmann::json run(const nlohmann::json& job, std::map<std::string, std::shared_ptr<const ogai::Model>>& models) {
  auto& model = models[job.at("package")];
  if (!model) model = ogai::Model::load(job.at("package").get<std::string>());
  ogai::GenerationOptions o;
  o.response_format = format_of(job.at("format"));
  o.max_new_tokens = job.value("max_new_tokens", 64);
  o.sampling.temperature = job.value("temperature", 0.0f);
  if (job.contains("seed")) o.sampling.seed = job.at("seed").get<std::uint64_t>();
  if (job.value("speculative", "") == "ngram") o.speculative.drafter = ogai::SpeculativeOptions::Drafter::kNgram;
  std::vector<ogai::GenerationResult> results;
  const std::string prompt = job.value("prompt", "Once upon a time");
  if (job.contains("engine")) {
    ogai::Engine engine(model, {});
    std::vector<std::shared_ptr<ogai::GenerationHandle>> handles;
    std::uint64_t seed = job.value("seed", 0);
    for (const auto& f : job.at("engine")) {
      ogai::GenerationOptions each = o;
      each.response_format = format_of(f);
      each.sampling.seed = seed++;
      handles.push_back(engine.submit(prompt, each));
    }
    for (auto& h : handles) results.push_back(h->wait());
  } else if (job.contains("batch")) {
    std::vector<std::string> prompts(job.at("batch").get<std::size_t>(), prompt);
    for (std::size_t i = 0; i < prompts.size(); ++i) prompts[i] += std::string(i, ' ');  // rows of different lengths
    results = model->generate_batch(prompts, o);
  } else {
    results.push_back(model->generate(prompt, o));
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : results) out.push_back({{"text", r.text}, {"finish_reason", ogai::finish_reason_name(r.finish_reason)}});
  return {{"results", out}};
}

}  // namespace

int main() {
  std::map<std::string, std::shared_ptr<const ogai::Model>> models;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json reply;
    try {
      reply = run(nlohmann::json::parse(line), models);
    } catch (const ogai::Error& e) {
      reply = {{"error", e.what()}, {"code", ogai::error_code_name(e.code())}};
    }
    std::cout << reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  }
  return 0;
}
