#include "importer/optimum_variant.h"

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "importer/json_reader.h"

namespace ogai::importer {
namespace fs = std::filesystem;
namespace {

// transformers.js's dtype -> file-name suffix, fallback order.
constexpr std::pair<const char*, const char*> kSuffixes[] = {
    {"fp32", ""},        {"fp16", "_fp16"},   {"q8", "_quantized"}, {"int8", "_int8"},
    {"uint8", "_uint8"}, {"q4", "_q4"},       {"q4f16", "_q4f16"},  {"bnb4", "_bnb4"}};

constexpr const char* kBases[] = {"model", "decoder_model_merged", "decoder_with_past_model"};

const char* suffix_of(const std::string& dtype) {
  for (const auto& [name, suffix] : kSuffixes)
    if (dtype == name) return suffix;
  return nullptr;
}

// The first graph of `dtype` present, under onnx/ or at the top.
std::optional<fs::path> graph_of(const fs::path& dir, const char* suffix) {
  std::error_code ec;
  for (const char* base : kBases) {
    const std::string file = std::string(base) + suffix + ".onnx";
    for (const fs::path& candidate : {fs::path("onnx") / file, fs::path(file)})
      if (fs::is_regular_file(dir / candidate, ec)) return candidate;
  }
  return std::nullopt;
}

// config.json's transformers.js_config.dtype when it is one string (a per-file map names the
// graph "model" as transformers.js looks it up), else empty.
std::string configured_dtype(const fs::path& dir) {
  const fs::path file = dir / "config.json";
  const JsonReader r(file);
  const Json config = r.parse(read_file(file));
  if (!config.is_object() || !config.contains("transformers.js_config")) return {};
  const Json& tjs = config["transformers.js_config"];
  if (!tjs.is_object() || !tjs.contains("dtype") || tjs["dtype"].is_null()) return {};
  const Json& dtype = tjs["dtype"];
  const std::string field = "transformers.js_config.dtype";
  if (dtype.is_object()) return dtype.contains("model") ? r.string(dtype["model"], field + ".model") : std::string();
  const std::string name = r.string(dtype, field);
  if (name != "auto" && suffix_of(name) == nullptr)
    fail(ErrorCode::kUnsupported, file.string(), "{}: '{}' is not a dtype transformers.js names a graph by ({})",
         field, name, fmt::join(optimum_dtypes(), ", "));
  return name == "auto" ? std::string() : name;
}

std::string present_dtypes(const fs::path& dir) {
  std::vector<std::string> present;
  for (const auto& [name, suffix] : kSuffixes)
    if (graph_of(dir, suffix)) present.push_back(name);
  return present.empty() ? std::string("none") : fmt::format("{}", fmt::join(present, ", "));
}

}  // namespace

const std::vector<std::string>& optimum_dtypes() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& [name, suffix] : kSuffixes) names.push_back(name);
    return names;
  }();
  return kNames;
}

std::optional<OptimumGraph> find_optimum_graph(const fs::path& dir, const std::string& dtype) {
  if (!dtype.empty()) {
    const char* suffix = suffix_of(dtype);
    if (suffix == nullptr)
      fail(ErrorCode::kInvalidArgument, "dtype", "'{}' is not one of transformers.js's dtypes ({})", dtype,
           fmt::join(optimum_dtypes(), ", "));
    std::optional<fs::path> path = graph_of(dir, suffix);
    if (!path)
      fail(ErrorCode::kNotFound, dir.string(), "no graph for dtype {} (model{}.onnx, decoder_model_merged{}.onnx or "
           "decoder_with_past_model{}.onnx, under onnx/ or here); the folder holds: {}", dtype, suffix, suffix, suffix,
           present_dtypes(dir));
    return OptimumGraph{*path, dtype, ""};
  }
  std::string wanted = configured_dtype(dir);
  const std::string source = wanted.empty() ? "transformers.js's default" : "config.json transformers.js_config.dtype";
  if (wanted.empty()) wanted = "fp32";
  if (std::optional<fs::path> path = graph_of(dir, suffix_of(wanted))) return OptimumGraph{*path, wanted, ""};
  for (const auto& [name, suffix] : kSuffixes)
    if (std::optional<fs::path> path = graph_of(dir, suffix))
      return OptimumGraph{*path, name, fmt::format("no {} graph ({} dtype); the first dtype present runs", wanted, source)};
  return std::nullopt;
}

std::vector<fs::path> optimum_graphs_present(const fs::path& dir) {
  std::vector<fs::path> present;
  std::error_code ec;
  for (const auto& [name, suffix] : kSuffixes)
    for (const char* base : kBases) {
      const std::string file = std::string(base) + suffix + ".onnx";
      for (const fs::path& candidate : {fs::path("onnx") / file, fs::path(file)})
        if (fs::is_regular_file(dir / candidate, ec)) present.push_back(candidate);
    }
  return present;
}

}  // namespace ogai::importer
