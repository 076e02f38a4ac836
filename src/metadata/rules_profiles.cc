// V-PROFILE: task profiles and their frame-synchronous (CTC) decoding contracts. Checked with or
// without a workflow: without one, a known profile cannot name workflow outputs.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

std::vector<std::string> strings_of(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& item : v)
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

// decoding.vocabulary: an inline token table must be non-empty, agree with `size`, and hold the
// delimiter, the ignored tokens and the blank (a renderer matches them by string identity).
void check_vocabulary(const Profile::Decoding& dec, const std::string& path, Diagnostics& d) {
  const nlohmann::json& v = dec.vocabulary;
  if (!v.is_object()) return;
  const std::string vpath = path + ".vocabulary";
  const std::vector<std::string> tokens = strings_of(v.value("tokens", nlohmann::json::array()));
  if (v.value("source", "") == "inline" && tokens.empty())
    d.report("V-PROFILE", vpath + ".tokens", "an inline vocabulary needs a non-empty `tokens` list");
  if (v.contains("size") && v["size"].is_number_integer() && !tokens.empty() &&
      v["size"].get<std::int64_t>() != static_cast<std::int64_t>(tokens.size()))
    d.report("V-PROFILE", vpath + ".size", "size {} disagrees with the {} tokens listed", v["size"].get<std::int64_t>(),
             tokens.size());
  if (tokens.empty()) return;
  auto listed = [&](const std::string& t) { return std::find(tokens.begin(), tokens.end(), t) != tokens.end(); };
  if (v.contains("word_delimiter") && v["word_delimiter"].is_string() && !listed(v["word_delimiter"].get<std::string>()))
    d.report("V-PROFILE", vpath + ".word_delimiter", "word_delimiter '{}' is not one of the tokens",
             v["word_delimiter"].get<std::string>());
  for (const std::string& ignored : strings_of(v.value("ignored_tokens", nlohmann::json::array())))
    if (!listed(ignored)) d.report("V-PROFILE", vpath + ".ignored_tokens", "ignored token '{}' is not one of the tokens", ignored);
  if (dec.blank_id && (*dec.blank_id < 0 || *dec.blank_id >= static_cast<std::int64_t>(tokens.size())))
    d.report("V-PROFILE", path + ".blank_id", "blank_id {} is outside the vocabulary of {} tokens", *dec.blank_id, tokens.size());
}

void check_decoding(const Profile& p, const std::string& path, Diagnostics& d) {
  if (p.kind == "transcription" && !p.decoding)
    d.report("V-PROFILE", path + ".decoding", "a transcription profile needs `decoding`");
  if (!p.decoding) return;
  const Profile::Decoding& dec = *p.decoding;
  const std::string dpath = path + ".decoding";
  if (p.batch_invariance == "padding_sensitive" && !dec.lengths)
    d.report("V-PROFILE", dpath + ".lengths", "a padding_sensitive profile must bind a `lengths` output role (padding "
             "changes a row's values, so its valid length cannot be re-derived)");
  if (dec.kind == "ctc" && !dec.blank_id) d.report("V-PROFILE", dpath + ".blank_id", "CTC decoding needs blank_id");
  if (dec.time_axis == dec.class_axis)
    d.report("V-PROFILE", dpath, "time_axis and class_axis are both {}", dec.time_axis);
  if (dec.lengths && !find_named(p.outputs, *dec.lengths))
    d.report("V-PROFILE", dpath + ".lengths", "lengths names output role '{}', which the profile's `outputs` does not "
             "declare", *dec.lengths);
  check_vocabulary(dec, dpath, d);
}

}  // namespace

void check_profiles(const Document& doc, const Workflow* wf, Diagnostics& d) {
  static const std::set<std::string_view> kKinds = {"generation", "embedding", "reranking", "classification", "reward",
                                                    "transcription"};
  for (const auto& [name, p] : doc.profiles) {
    std::string path = "profiles." + name;
    if (!kKinds.count(p.kind)) {
      if (p.required) d.report("V-PROFILE", path + ".kind", "required profile of unknown kind '{}'", p.kind);
      continue;
    }
    for (const auto& [role, output] : p.outputs)
      if (!wf || !find_named(wf->outputs, output))
        d.report("V-PROFILE", path + ".outputs." + role, "output '{}' is not a workflow output{}", output,
                 wf ? "" : " (the document has no pipeline.workflow)");
    check_decoding(p, path, d);
  }
}

}  // namespace ogai::metadata::detail
