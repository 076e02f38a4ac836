#include "importer/document_sections.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ogai::importer {

void write_package_section(YamlLines& y, const DocumentPlan& p) {
  if (p.tokenizer_algorithm.empty()) return;
  y.line(0, "package:");
  y.line(1, "tokenizer:");
  y.line(2, "algorithm: {}", quote(p.tokenizer_algorithm));
  y.line(2, "vocab_size: {}", p.tokenizer_vocab_size);
  y.line(2, "byte_level: {}", p.tokenizer_byte_level ? "true" : "false");
  y.line(2, "artifacts:");
  y.line(2, "- location: tokenizer.json");
  if (p.special_tokens.empty()) return;
  y.line(2, "special_tokens:");
  for (const SpecialTokenFact& t : p.special_tokens)
    y.line(3, "{}: {{id: {}, content: {}}}", t.name, t.id, nlohmann::json(t.content).dump());
}

void write_generation_section(YamlLines& y, const SearchDefaults& s) {
  std::vector<std::string> fields;
  auto add = [&](const char* name, const auto& value) {
    if (value) fields.push_back(fmt::format("{}: {}", name, nlohmann::json(*value).dump()));
  };
  add("do_sample", s.do_sample);
  add("temperature", s.temperature);
  add("top_k", s.top_k);
  add("top_p", s.top_p);
  add("repetition_penalty", s.repetition_penalty);
  add("num_beams", s.num_beams);
  add("num_return_sequences", s.num_return_sequences);
  add("min_length", s.min_length);
  add("max_length", s.max_length);
  add("length_penalty", s.length_penalty);
  add("no_repeat_ngram_size", s.no_repeat_ngram_size);
  add("diversity_penalty", s.diversity_penalty);
  add("early_stopping", s.early_stopping);
  if (fields.empty()) return;
  y.line(0, "generation:");
  y.line(1, "defaults:");
  for (const auto& f : fields) y.line(2, "{}", f);
}

}  // namespace ogai::importer
