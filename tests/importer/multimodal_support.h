// Helpers shared by the multimodal import tests (multimodal_import_test.cc, audio_import_test.cc):
// the folders tools/genai/multimodal.py writes (CTest fixture `importer_multimodal_folders`), an
// import validated as a package and read back as JSON, linked variants of a folder with another
// genai_config.json, and refusals checked by code and message fragments.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "importer/import.h"
#include "importer/processor_import.h"
#include "metadata/package.h"
#include "metadata/tree.h"
#include "ogai/error.h"

namespace ogai::importer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kShared = fs::path(OGAI_SHARED_DIR) / "ortgenai";
const fs::path kGenerated = fs::path(OGAI_BINARY_DIR) / "importer_folders" / "multimodal";

inline json to_json(const metadata::Node& n) {
  using K = metadata::Node::Kind;
  switch (n.kind) {
    case K::kNull: return nullptr;
    case K::kBool: return n.boolean;
    case K::kInt: return n.integer;
    case K::kFloat: return n.number;
    case K::kString: return n.text;
    case K::kSeq: {
      json a = json::array();
      for (const auto& item : n.items) a.push_back(to_json(*item));
      return a;
    }
    case K::kMap: {
      json o = json::object();
      for (const auto& [key, v] : n.entries) o[key] = to_json(*v);
      return o;
    }
  }
  return nullptr;
}

// The import of `dir`, validated as a package at the folder, as JSON.
inline json imported(const fs::path& dir, std::string* text = nullptr) {
  ImportResult r = import_genai_folder(dir);
  metadata::ValidationReport report = metadata::validate_package_text(r.document, r.config_file);
  EXPECT_TRUE(report.valid()) << report.diagnostics.text() << "\n" << r.document;
  if (text) *text = r.document;
  return to_json(*metadata::parse_yaml(r.document, dir.string()));
}

inline void expect_refused(const std::function<void()>& f, const std::vector<std::string>& fragments,
                    ErrorCode code = ErrorCode::kUnsupported) {
  try {
    f();
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& s : fragments) EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what() << "\nmissing: " << s;
  }
}

// A build-tree folder hard-linking every file of `source` but `skip`, with `config` as genai_config.json.
inline fs::path linked_folder(const std::string& name, const fs::path& source, const json& config,
                       const std::vector<std::string>& skip = {}) {
  const fs::path dir = kGenerated / "linked" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(source)) {
    const std::string file = entry.path().filename().string();
    if (file == "genai_config.json" || std::find(skip.begin(), skip.end(), file) != skip.end()) continue;
    // A hard link (a symbolic one resolves outside the folder, which the importer refuses), else a copy.
    std::error_code ec;
    fs::create_hard_link(fs::canonical(entry.path()), dir / file, ec);
    if (ec) fs::copy_file(fs::canonical(entry.path()), dir / file);
  }
  std::ofstream(dir / "genai_config.json") << config.dump(2);
  return dir;
}

inline json config_of(const fs::path& dir) { return json::parse(read_file(dir / "genai_config.json")); }

inline const json& workflow(const json& doc) { return doc["pipeline"]["workflow"]; }

inline std::vector<std::string> ops(const json& program) {
  std::vector<std::string> out;
  for (const auto& t : program["transforms"]) out.push_back(t["op"]);
  return out;
}

inline std::vector<std::string> step_components(const json& doc) {
  std::vector<std::string> out;
  for (const auto& s : workflow(doc)["steps"]) out.push_back(s.value("component", "emit"));
  return out;
}

}  // namespace
}  // namespace ogai::importer
