#include "generate/session_settings.h"

#include "base/error.h"
#include "base/log.h"

namespace ogai::generate {
namespace {

void ignore(const std::string& origin, const std::string& path, const std::string& value, const std::string& why) {
  log(LogLevel::kWarn, "{}: {}{} ignored: {}", origin, path, value.empty() ? "" : " '" + value + "'", why);
}

void apply_provider_option(const importer::ProviderOption& o, ort::SessionOptions& options, const std::string& origin) {
  const std::string& ep = options.execution_provider;
  if (o.provider != ep) {
    ignore(origin, o.path, o.value, "ogai runs on " + ep + " (--ep), not " + o.provider);
    return;
  }
  if (o.key.empty()) return;  // the provider itself: chosen with --ep
  if (o.provider == "cuda" && o.key == "enable_cuda_graph") {
    if (o.value != "0")
      ignore(origin, o.path, o.value, "ogai's decode steps change input shapes (growing KV, rows joining), so a "
             "captured CUDA graph could not be replayed; outputs are the same without it");
    return;
  }
  if (o.provider == "cuda" && o.key == "device_id") {
    if (!options.device_id_set) {
      try {
        options.device_id = std::stoi(o.value);
      } catch (const std::exception&) {
        fail(ErrorCode::kInvalidPackage, o.path, "device_id '{}' is not an integer", o.value);
      }
    }
    return;
  }
  if (o.provider == "cuda") {
    options.cuda_options.emplace_back(o.key, o.value);
    return;
  }
  ignore(origin, o.path, o.value, "ogai passes no options to the " + o.provider + " provider");
}

}  // namespace

void apply_session_settings(const importer::SessionSettings& s, ort::SessionOptions& options,
                            const std::string& origin) {
  for (const auto& line : s.ignored) log(LogLevel::kWarn, "{}: {} (ignored)", origin, line);
  // --threads (already in `options`) wins over the package's counts.
  if (s.intra_op_threads && options.intra_op_threads == 0)
    options.intra_op_threads = static_cast<int>(*s.intra_op_threads);
  if (s.inter_op_threads && options.inter_op_threads == 0)
    options.inter_op_threads = static_cast<int>(*s.inter_op_threads);
  if (s.graph_optimization_level) options.graph_optimization_level = *s.graph_optimization_level;
  options.cpu_mem_arena = s.enable_cpu_mem_arena;
  options.mem_pattern = s.enable_mem_pattern;
  if (s.enable_profiling && *s.enable_profiling) options.enable_profiling = true;
  options.config_entries = s.config_entries;
  for (const auto& o : s.provider_options) apply_provider_option(o, options, origin);
}

}  // namespace ogai::generate
