// `ogai inspect PATH [--json]`: graph I/O of a model file, or of every ONNX artifact in a package
// directory, read without loading weights.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "onnx/graph_info.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;

std::string dim_text(const onnx::Dim& d) {
  if (d.is_fixed()) return std::to_string(d.value);
  return d.symbol.empty() ? "?" : d.symbol;
}

std::string shape_text(const onnx::ValueInfo& v) {
  if (!v.has_shape) return "(unknown rank)";
  std::string s = "[";
  for (std::size_t i = 0; i < v.shape.size(); ++i) s += (i ? ", " : "") + dim_text(v.shape[i]);
  return s + "]";
}

nlohmann::json value_json(const onnx::ValueInfo& v) {
  nlohmann::json shape = nlohmann::json::array();
  for (const auto& d : v.shape) {
    if (d.is_fixed()) shape.push_back(d.value);
    else shape.push_back(d.symbol.empty() ? "?" : d.symbol);
  }
  nlohmann::json j = {{"name", v.name}, {"dtype", std::string(dtype_name(v.dtype))}};
  j["shape"] = v.has_shape ? shape : nlohmann::json(nullptr);
  return j;
}

nlohmann::json graph_json(const onnx::GraphInfo& g) {
  nlohmann::json j = {{"inputs", nlohmann::json::array()}, {"outputs", nlohmann::json::array()}};
  for (const auto* v : g.runtime_inputs()) j["inputs"].push_back(value_json(*v));
  for (const auto& v : g.outputs) j["outputs"].push_back(value_json(v));
  return j;
}

void print_table(const fs::path& path, const onnx::GraphInfo& g) {
  std::printf("%s  (ir %lld, %zu nodes, %zu initializers)\n", path.string().c_str(),
              static_cast<long long>(g.ir_version), g.node_count, g.initializers.size());
  auto rows = g.runtime_inputs();
  std::size_t width = 4;
  for (const auto* v : rows) width = std::max(width, v->name.size());
  for (const auto& v : g.outputs) width = std::max(width, v.name.size());
  auto print_row = [&](const char* dir, const onnx::ValueInfo& v) {
    std::printf("  %-6s %-*s  %-9s %s\n", dir, static_cast<int>(width), v.name.c_str(),
                std::string(dtype_name(v.dtype)).c_str(), shape_text(v).c_str());
  };
  for (const auto* v : rows) print_row("input", *v);
  for (const auto& v : g.outputs) print_row("output", v);
}

bool is_model_file(const fs::path& p) {
  std::string name = p.filename().string();
  return name.ends_with(".onnx") || name.ends_with(".onnx.textproto");
}

// The ONNX artifacts of a package directory, sorted, searched recursively.
std::vector<fs::path> package_models(const fs::path& dir) {
  std::vector<fs::path> models;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && is_model_file(entry.path())) models.push_back(entry.path());
  std::sort(models.begin(), models.end());
  return models;
}

int run_inspect(const fs::path& path, bool json) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    std::fprintf(stderr, "ogai inspect: %s: %s\n", path.string().c_str(),
                 ec ? ec.message().c_str() : "no such file or directory");
    return kExitUsage;
  }
  std::vector<fs::path> models = fs::is_directory(path) ? package_models(path) : std::vector<fs::path>{path};
  if (models.empty()) {
    std::fprintf(stderr, "ogai inspect: %s: no .onnx or .onnx.textproto files found\n", path.string().c_str());
    return kExitUsage;
  }
  nlohmann::json all = nlohmann::json::object();
  for (const auto& model : models) {
    onnx::GraphInfo g = onnx::read_graph_info(model);
    if (!json) print_table(model, g);
    else if (models.size() == 1) all = graph_json(g);
    else all[fs::relative(model, path).string()] = graph_json(g);
  }
  if (json) std::printf("%s\n", all.dump(2).c_str());
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("inspect", "print the graph inputs and outputs of a model file or package");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("PATH", *path, "a .onnx / .onnx.textproto file or a package directory")->required();
  cmd->add_flag("--json", *json, "print JSON: {\"inputs\":[{name,dtype,shape}],\"outputs\":[...]}");
  cmd->callback([&result, path, json] { result.exit_code = run_inspect(*path, *json); });
}

}  // namespace ogai::cli
