#include "importer/processor_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.h"

namespace ogai::importer {

ExtensionOperation extension_operation(const JsonReader& r, const Json& entry, const std::string& path) {
  const Json& op = r.object(r.object(entry, path).contains("operation") ? entry["operation"] : entry, path);
  std::string at = path + ".operation";
  r.closed(op, at, {"name", "type", "domain", "attrs"});
  if (!op.contains("type")) r.refuse(at + ".type", "missing");
  std::string type = r.string(op["type"], at + ".type");
  return {op, std::move(at), std::move(type)};
}

const Json& feature_sequence(const JsonReader& r, const Json& root) {
  r.closed(r.object(root, "(top level)"), "", {"feature_extraction"});
  if (!root.contains("feature_extraction")) r.refuse("feature_extraction", "missing");
  const Json& fe = r.object(root["feature_extraction"], "feature_extraction");
  r.closed(fe, "feature_extraction", {"sequence"});
  if (!fe.contains("sequence") || !fe["sequence"].is_array() || fe["sequence"].empty())
    r.refuse("feature_extraction.sequence", "must list the operations");
  return fe["sequence"];
}

Json operation_attrs(const JsonReader& r, const Json& op, const std::string& path,
                     std::initializer_list<std::string_view> known) {
  if (!op.contains("attrs")) return Json::object();
  const Json& a = r.object(op["attrs"], path + ".attrs");
  for (const auto& [key, value] : a.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (auto k : known) names += (names.empty() ? "" : ", ") + std::string(k);
    r.refuse(path + ".attrs." + key, "'" + value.dump() + "' is not an attribute ogai translates (known: " +
                                         (names.empty() ? std::string("none") : names) + ")");
  }
  return a;
}

nlohmann::ordered_json bind_outputs(const JsonReader& r, const std::vector<MadeField>& made,
                                    const std::vector<ProgramTarget>& targets, std::vector<std::string>& fields) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [field, _] : made) fields.push_back(field);
  for (const ProgramTarget& t : targets) {
    auto it = std::find_if(made.begin(), made.end(), [&](const MadeField& m) { return m.first == t.field; });
    if (it == made.end()) {
      std::string listed;
      for (const auto& f : fields) listed += (listed.empty() ? "" : ", ") + f;
      fail(ErrorCode::kUnsupported, r.origin().string(), "the graph takes '{}', which {} does not make (it makes {})",
           t.field, r.origin().filename().string(), listed.empty() ? std::string("nothing") : listed);
    }
    out.push_back({{"name", t.output}, {"content", it->second["content"]}, {"dtype", std::string(dtype_name(t.dtype))},
                   {"source", it->second["source"]}});
  }
  return out;
}

}  // namespace ogai::importer
