// The differential test against the official JSON-Schema-Test-Suite (and ogai's own 2020-12
// cases in the same format): for every schema that compiles, each test instance, re-serialized
// in the generated JSON style (compact; object keys in the order the schema declares them), is
// matched against the grammar and compared with the suite's verdict.
//   schema_suite_diff [--ignore-keyword K] [--min-agreement F] PATH...   (files or directories)
// Prints per keyword file: schemas compiled / refused, instances agreeing / checked, and
// "FAIL-OPEN" lines for any instance the suite calls invalid that the grammar accepts.
// Exit status 1 on any fail-open, or when agreements / valid instances of compiled schemas fall
// under --min-agreement (a regression floor); 2 on bad usage or unreadable files.
// --ignore-keyword K (JsonSchemaOptions::ignore_keyword_for_testing) is the mutation switch:
// with a keyword's enforcement dropped the differential must fail (tests/CMakeLists.txt).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "grammar/compiled_grammar.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// Property names in the order the schema first mentions them (in any "properties" or "required").
void collect_names(const Json& s, std::map<std::string, std::size_t>& rank) {
  if (s.is_object()) {
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (it.key() == "properties" && it->is_object())
        for (auto p = it->begin(); p != it->end(); ++p) rank.emplace(p.key(), rank.size());
      if (it.key() == "required" && it->is_array())
        for (const auto& n : *it)
          if (n.is_string()) rank.emplace(n.get<std::string>(), rank.size());
      collect_names(*it, rank);
    }
  } else if (s.is_array()) {
    for (const auto& v : s) collect_names(v, rank);
  }
}

Json reorder(const Json& v, const std::map<std::string, std::size_t>& rank) {
  if (v.is_array()) {
    Json out = Json::array();
    for (const auto& x : v) out.push_back(reorder(x, rank));
    return out;
  }
  if (!v.is_object()) return v;
  std::vector<std::pair<std::string, const Json*>> items;
  for (auto it = v.begin(); it != v.end(); ++it) items.emplace_back(it.key(), &*it);
  std::stable_sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
    auto ra = rank.find(a.first), rb = rank.find(b.first);
    const std::size_t x = ra == rank.end() ? SIZE_MAX : ra->second, y = rb == rank.end() ? SIZE_MAX : rb->second;
    return x < y;
  });
  Json out = Json::object();
  for (const auto& [k, x] : items) out[k] = reorder(*x, rank);
  return out;
}

bool accepts(const std::shared_ptr<const ogai::grammar::CompiledGrammar>& g, const std::string& text) {
  ogai::grammar::Matcher m(g);
  const auto s = m.walk(m.initial(), text);
  return s != ogai::grammar::Matcher::kDead && m.accepting(s);
}

struct Tally {
  int compiled = 0, refused = 0, invalid_schema = 0, checked = 0, agree = 0, valid = 0, valid_accepted = 0,
      fail_open = 0;
};

}  // namespace

int main(int argc, char** argv) {
  ogai::grammar::JsonSchemaOptions options;
  double min_agreement = 0;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ignore-keyword" && i + 1 < argc) {
      options.ignore_keyword_for_testing = argv[++i];
    } else if (a == "--min-agreement" && i + 1 < argc) {
      min_agreement = std::stod(argv[++i]);
    } else if (fs::is_directory(a)) {
      for (const auto& e : fs::directory_iterator(a))
        if (e.path().extension() == ".json") files.push_back(e.path());
    } else if (fs::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::cerr << "schema_suite_diff: '" << a << "' is neither a suite file nor a directory\n";
      return 2;
    }
  }
  if (files.empty()) {
    std::cerr << "usage: schema_suite_diff [--ignore-keyword K] [--min-agreement F] PATH...\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  Tally total;
  std::printf("%-44s %8s %7s %7s %9s\n", "file", "compiled", "refused", "invalid", "agree");
  for (const auto& file : files) {
    std::ifstream in(file);
    Json groups;
    try {
      groups = Json::parse(in);
    } catch (const std::exception& e) {
      std::cerr << file << ": not JSON: " << e.what() << "\n";
      return 2;
    }
    Tally t;
    for (const auto& group : groups) {
      const Json& schema = group.at("schema");
      std::shared_ptr<const ogai::grammar::CompiledGrammar> g;
      try {
        g = ogai::grammar::CompiledGrammar::compile(ogai::grammar::compile_json_schema(schema.dump(), "s", options));
        ++t.compiled;
      } catch (const ogai::Error& e) {
        (e.code() == ogai::ErrorCode::kUnsupported ? t.refused : t.invalid_schema)++;
        // A schema refused as allowing nothing must indeed have no valid instance in the suite.
        if (e.code() != ogai::ErrorCode::kUnsupported)
          for (const auto& test : group.at("tests"))
            if (test.at("valid").get<bool>())
              std::printf("NOTE %s: '%s': %s, yet the suite has a valid instance\n", file.filename().c_str(),
                          group.at("description").get<std::string>().c_str(), e.what());
        continue;
      }
      std::map<std::string, std::size_t> rank;
      collect_names(schema, rank);
      for (const auto& test : group.at("tests")) {
        const bool valid = test.at("valid").get<bool>();
        const std::string text = reorder(test.at("data"), rank).dump();
        const bool got = accepts(g, text);
        ++t.checked;
        t.agree += got == valid;
        t.valid += valid;
        t.valid_accepted += valid && got;
        if (got && !valid) {
          ++t.fail_open;
          std::printf("FAIL-OPEN %s: '%s' / '%s': %s accepted\n", file.filename().c_str(),
                      group.at("description").get<std::string>().c_str(),
                      test.at("description").get<std::string>().c_str(), text.c_str());
        }
      }
    }
    std::printf("%-44s %8d %7d %7d %5d/%-4d\n", (file.parent_path().filename() / file.filename()).c_str(), t.compiled,
                t.refused, t.invalid_schema, t.agree, t.checked);
    total.compiled += t.compiled;
    total.refused += t.refused;
    total.invalid_schema += t.invalid_schema;
    total.checked += t.checked;
    total.agree += t.agree;
    total.valid += t.valid;
    total.valid_accepted += t.valid_accepted;
    total.fail_open += t.fail_open;
  }
  const double ratio = total.valid ? static_cast<double>(total.valid_accepted) / total.valid : 1.0;
  std::printf("TOTAL schemas compiled %d, refused %d, invalid %d; instances agree %d/%d; valid accepted %d/%d "
              "(%.3f); fail-open %d\n",
              total.compiled, total.refused, total.invalid_schema, total.agree, total.checked, total.valid_accepted,
              total.valid, ratio, total.fail_open);
  if (total.fail_open > 0) return 1;
  if (ratio < min_agreement) {
    std::printf("valid instances accepted %.3f is under the floor %.3f\n", ratio, min_agreement);
    return 1;
  }
  return 0;
}
