#include "ort/session_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <fstream>

#include "base/error.h"
#include "base/file.h"
#include "base/log.h"
#include "onnx/graph_info.h"

namespace ogai::ort {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModel = "model.onnx";
constexpr const char* kData = "model.onnx.data";
constexpr const char* kKey = "key.txt";
constexpr const char* kManifest = "\n-- entry --\n";

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// /proc/cpuinfo's first "model name" and "flags" lines: what decides the pre-packed layouts.
std::string cpu_identity() {
  std::ifstream in("/proc/cpuinfo");
  std::string model, flags;
  for (std::string line; std::getline(in, line) && (model.empty() || flags.empty());) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  return fmt::format("{} / flags {:016x}", model, fnv1a(flags));
}

std::string file_identity(const fs::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "missing";
  return fmt::format("{} bytes, modified {}.{:09}", static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
}

// A directory or file this user owns, not a symbolic link, writable by no one else.
bool trusted(const fs::path& path, bool directory) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return false;
  return directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

std::string manifest(const fs::path& dir) {
  const std::string model = read_file(dir / kModel);
  return fmt::format("{} {} bytes {:016x}\n{} {} bytes", kModel, model.size(), fnv1a(model), kData,
                     static_cast<unsigned long long>(fs::file_size(dir / kData)));
}

constexpr std::uintmax_t kMaxKeyBytes = 1 << 20;    // the key text and manifest
constexpr std::uintmax_t kMaxGraphBytes = 256 << 20;  // the optimized graph (weights are in the data file)

bool valid_entry(const fs::path& dir, const std::string& key) {
  if (!trusted(dir, true)) return false;
  for (const char* name : {kModel, kData, kKey})
    if (!trusted(dir / name, false)) return false;
  try {
    if (fs::file_size(dir / kKey) > kMaxKeyBytes || fs::file_size(dir / kModel) > kMaxGraphBytes) return false;
    return read_file(dir / kKey) == key + kManifest + manifest(dir);
  } catch (const std::exception&) {
    return false;
  }
}

// Removes an entry of this user's that failed validation; false when it is someone else's.
bool clear_own(const fs::path& dir) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return true;
  if (st.st_uid != geteuid() || S_ISLNK(st.st_mode)) return false;
  std::error_code ec;
  fs::remove_all(dir, ec);
  return !ec;
}

Session build(const fs::path& cache_dir, const fs::path& entry, const std::string& key, std::string_view bytes,
              const fs::path& external_data_dir, const SessionOptions& options, const std::string& origin) {
  static std::atomic<int> counter{0};
  const fs::path staging = cache_dir / fmt::format(".building-{}-{}-{}", entry.filename().string(), getpid(), counter++);
  if (mkdir(staging.c_str(), 0700) != 0)
    fail(ErrorCode::kRuntime, staging.string(), "cannot create the cache's staging directory");
  SessionOptions save = options;
  save.config_entries.emplace_back("session.optimized_model_filepath", (staging / kModel).string());
  save.config_entries.emplace_back("session.optimized_model_external_initializers_file_name", kData);
  save.config_entries.emplace_back("session.optimized_model_external_initializers_min_size_in_bytes", "1024");
  save.config_entries.emplace_back("session.save_external_prepacked_constant_initializers", "1");
  try {
    Session session = Session::from_bytes(bytes, save, external_data_dir, origin);
    if (!fs::exists(staging / kData)) write_file(staging / kData, "");  // a graph without large weights
    write_file(staging / kKey, key + kManifest + manifest(staging));
    if (!clear_own(entry) || rename(staging.c_str(), entry.c_str()) != 0) {
      log(LogLevel::kWarn, "{}: session cache entry {} is not this user's or is in use; not replaced", origin,
          entry.string());
      fs::remove_all(staging);
    }
    return session;
  } catch (...) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace

std::string cache_key(std::string_view model_bytes, const fs::path& external_data_dir, const SessionOptions& options,
                      const std::string& origin) {
  std::string key = fmt::format("ogai session cache 1\nonnxruntime {}\nprovider {}\noptimization level {}\ncpu {}\n",
                                runtime_version(), options.execution_provider,
                                options.graph_optimization_level.value_or(99), cpu_identity());
  for (const auto& [k, v] : options.config_entries) key += fmt::format("config {}={}\n", k, v);
  key += fmt::format("model {} bytes {:016x}\n", model_bytes.size(), fnv1a(model_bytes));
  const onnx::GraphInfo info = onnx::read_graph_info_from_bytes(
      reinterpret_cast<const std::uint8_t*>(model_bytes.data()), model_bytes.size(), origin);
  for (const auto& file : info.external_data_files())
    key += fmt::format("external {}: {}\n", file, file_identity(external_data_dir / file));
  return key;
}

Session open_cached(const fs::path& cache_dir, std::string_view model_bytes, const fs::path& external_data_dir,
                    const SessionOptions& options, const std::string& origin, CacheUse* use) {
  auto report = [&](CacheUse u) {
    if (use != nullptr) *use = u;
  };
  if (options.execution_provider != "cpu" || options.enable_profiling) {
    report(CacheUse::kBypassed);
    return Session::from_bytes(model_bytes, options, external_data_dir, origin);
  }
  const std::string key = cache_key(model_bytes, external_data_dir, options, origin);
  const fs::path entry = cache_dir / fmt::format("{:016x}", fnv1a(key));
  if (valid_entry(entry, key)) {
    SessionOptions load = options;
    load.graph_optimization_level = 0;  // ORT_DISABLE_ALL: the graph is already optimized
    report(CacheUse::kHit);
    return Session::open(entry / kModel, load);
  }
  try {
    std::error_code ec;
    fs::create_directories(cache_dir, ec);
    if (!trusted(cache_dir, true))
      fail(ErrorCode::kRuntime, cache_dir.string(),
           "the session cache directory is not a directory of this user's that only it can write");
    Session session = build(cache_dir, entry, key, model_bytes, external_data_dir, options, origin);
    report(CacheUse::kBuilt);
    return session;
  } catch (const Error& e) {
    log(LogLevel::kWarn, "{}: session cache unused: {}", origin, e.what());
    report(CacheUse::kBypassed);
    return Session::from_bytes(model_bytes, options, external_data_dir, origin);
  }
}

}  // namespace ogai::ort
