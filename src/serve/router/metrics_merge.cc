#include "serve/router/metrics_merge.h"

#include <map>
#include <set>
#include <sstream>

namespace ogai::serve::router {
namespace {

struct Family {
  std::vector<std::string> head;     // # HELP / # TYPE lines
  std::vector<std::string> samples;
};

struct Families {
  std::vector<std::string> order;
  std::map<std::string, Family> by_name;
  Family& at(const std::string& name) {
    auto [it, added] = by_name.try_emplace(name);
    if (added) order.push_back(name);
    return it->second;
  }
};

// "# HELP name ..." / "# TYPE name ..." -> name; "" for other comments.
std::string described_name(const std::string& line) {
  if (!line.starts_with("# HELP ") && !line.starts_with("# TYPE ")) return "";
  const std::size_t end = line.find(' ', 7);
  return line.substr(7, end == std::string::npos ? std::string::npos : end - 7);
}

// Calls `each(family name, line, is_head)` per non-empty line of `text`.
template <typename F>
void for_each_line(const std::string& text, F each) {
  std::istringstream in(text);
  std::string line, family;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::string named = described_name(line);
    if (!named.empty()) family = named;
    if (!named.empty() || !line.starts_with("#")) each(family, line, !named.empty());
  }
}

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string with_model_label(const std::string& sample, const std::string& id) {
  const std::size_t cut = sample.find_first_of("{ ");
  if (cut == std::string::npos) return sample;
  const std::string label = "model=\"" + escaped(id) + "\"";
  if (sample[cut] == ' ') return sample.substr(0, cut) + "{" + label + "}" + sample.substr(cut);
  const bool empty_set = cut + 1 < sample.size() && sample[cut + 1] == '}';
  return sample.substr(0, cut + 1) + label + (empty_set ? "" : ",") + sample.substr(cut + 1);
}

std::string merge_model_metrics(const std::string& server,
                                const std::vector<std::pair<std::string, std::string>>& models) {
  Families families;
  std::set<std::string> owned;  // the router's families
  for_each_line(server, [&](const std::string& family, const std::string& line, bool head) {
    owned.insert(family);
    Family& f = families.at(family);
    (head ? f.head : f.samples).push_back(line);
  });
  std::set<std::string> headed;  // model families whose head is written
  for (const auto& [id, text] : models)
    for_each_line(text, [&, &model = id](const std::string& family, const std::string& line, bool head) {
      if (owned.count(family) != 0) return;
      Family& f = families.at(family);
      if (!head) return f.samples.push_back(with_model_label(line, model));
      if (f.samples.empty() && headed.count(family) == 0) f.head.push_back(line);
      if (line.starts_with("# TYPE ")) headed.insert(family);
    });
  std::string out;
  for (const std::string& name : families.order)
    for (const auto* lines : {&families.by_name.at(name).head, &families.by_name.at(name).samples})
      for (const std::string& line : *lines) out += line + "\n";
  return out;
}

}  // namespace ogai::serve::router
