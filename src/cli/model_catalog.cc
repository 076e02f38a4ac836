#include "cli/model_catalog.h"

#include <algorithm>
#include <set>

#include "base/error.h"
#include "base/log.h"
#include "metadata/package.h"
#include "serve/router/model_loader.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;

bool has_metadata(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"inference_metadata.yaml", "inference_metadata.yml", "inference_metadata.json"})
    if (fs::is_regular_file(dir / name, ec)) return true;
  return false;
}

bool is_package(const fs::path& dir) {
  return has_metadata(dir) || metadata::imports_genai_config(dir) || metadata::imports_optimum_export(dir);
}

}  // namespace

std::string model_id(const fs::path& package) {
  std::error_code ec;
  fs::path folder = fs::is_regular_file(package, ec) ? package.parent_path() : package;
  std::string name = folder.filename().string();
  if (name.empty() || name == ".") name = fs::absolute(folder, ec).lexically_normal().parent_path().filename().string();
  return name.empty() ? "ogai" : name;
}

std::vector<fs::path> packages_in(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(ErrorCode::kNotFound, dir.string(), "--models-dir: no such directory");
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || !fs::is_directory(entry.path(), ec)) continue;
    if (is_package(entry.path())) found.push_back(entry.path());
    else log(LogLevel::kWarn, "serve: --models-dir: skipping {}: no inference_metadata.yaml, genai_config.json or "
             "Optimum export in it", entry.path().string());
  }
  if (ec) fail(ErrorCode::kNotFound, dir.string(), "--models-dir: cannot list it: {}", ec.message());
  if (found.empty())
    fail(ErrorCode::kNotFound, dir.string(),
         "--models-dir: no package folder in it (a folder with inference_metadata.yaml, genai_config.json or an "
         "Optimum export)");
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<serve::router::ModelSpec> model_specs(const std::vector<std::string>& packages,
                                                  const std::string& models_dir) {
  std::vector<fs::path> paths(packages.begin(), packages.end());
  if (!models_dir.empty())
    for (fs::path& p : packages_in(models_dir)) paths.push_back(std::move(p));
  std::vector<serve::router::ModelSpec> specs;
  std::set<std::string> ids;
  for (const fs::path& p : paths) {
    std::error_code ec;
    const fs::path folder = fs::is_regular_file(p, ec) ? p.parent_path() : p;
    serve::router::ModelSpec spec{model_id(p), p, serve::router::package_bytes(folder)};
    if (!ids.insert(spec.id).second)
      fail(ErrorCode::kInvalidArgument, p.string(),
           "two packages would be served as '{}' (ids are the folder names): rename one folder", spec.id);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace ogai::cli
