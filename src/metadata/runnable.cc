#include "metadata/runnable.h"

#include <fmt/format.h>

#include <algorithm>

#include "metadata/rules.h"

namespace ogai::metadata {
namespace {

void check_capability_ids(const std::vector<std::string>& ids, const std::string& path, Diagnostics& d) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (!detail::builtin_capabilities().count(ids[i]) && ids[i].find('.') == std::string::npos)
      d.report("RUN", fmt::format("{}[{}]", path, i), "capability '{}' is neither one of the 30 built-in v1 "
               "capabilities nor an extension id (extensions contain a '.'); ogai cannot run a package that needs it",
               ids[i]);
}

}  // namespace

std::optional<std::string> profile_not_run(const std::string& name, const Profile& p, std::string& path) {
  const std::string base = "profiles." + name;
  if (p.kind == "generation") return std::nullopt;
  if (p.kind != "transcription") {
    path = base + ".kind";
    return fmt::format("ogai does not execute '{}' profiles (it runs generation and CTC transcription profiles); "
                       "mark it `requirement: ignorable` to run the workflow and read its raw outputs", p.kind);
  }
  if (!p.decoding) {
    path = base + ".decoding";
    return std::string("a transcription profile needs `decoding`");
  }
  if (p.decoding->kind != "ctc" && p.decoding->kind != "greedy_argmax") {
    path = base + ".decoding.kind";
    return fmt::format("decoding kind '{}' is not executed (ogai decodes ctc and greedy_argmax)", p.decoding->kind);
  }
  const nlohmann::json& v = p.decoding->vocabulary;
  if (v.is_object() && v.contains("source") &&
      !(v["source"] == "inline" || v["source"] == "tokenizer")) {
    path = base + ".decoding.vocabulary.source";
    return fmt::format("vocabulary source {} is not read (ogai reads inline and tokenizer)", v["source"].dump());
  }
  const bool has_logits = std::any_of(p.outputs.begin(), p.outputs.end(), [](const auto& o) { return o.first == "logits"; });
  if (!has_logits) {
    path = base + ".outputs";
    return std::string("ogai reads the frame logits from the output role `logits`, which the profile does not declare");
  }
  return std::nullopt;
}

void check_runnable(const Document& doc, Diagnostics& d) {
  check_capability_ids(doc.required_capabilities, "required_capabilities", d);
  for (const auto& [name, p] : doc.profiles) {
    std::string path;
    if (!p.required) continue;
    if (auto why = profile_not_run(name, p, path)) d.report("RUN", path, "{}", *why);
  }
  if (!doc.workflow && !(doc.model && doc.model->io)) {
    d.report("RUN", "pipeline", "the document declares nothing to run: a v1 package declares pipeline.workflow (or, "
             "for a legacy single decoder, model.io)");
    return;
  }
  if (!doc.workflow) return;
  check_capability_ids(doc.workflow->manifest.capabilities, "pipeline.workflow.manifest.capabilities", d);
  for (const auto& [name, in] : doc.workflow->inputs)
    if (in.source.kind == InputSource::Kind::kLiteral && !in.default_value)
      d.report("RUN", "pipeline.workflow.inputs." + name + ".default", "literal input '{}' has no `default`, so there "
               "is no value to run with", name);
}

}  // namespace ogai::metadata
