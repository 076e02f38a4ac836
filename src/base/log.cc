#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "base/error.h"

namespace ogai {
namespace {

constexpr const char* kNames[] = {"error", "warn", "info", "debug", "trace"};

LogLevel initial_level() {
  const char* env = std::getenv("OGAI_LOG");
  if (env == nullptr || *env == '\0') return LogLevel::kWarn;
  try {
    return parse_log_level(env);
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai: ignoring OGAI_LOG: %s\n", e.what());
    return LogLevel::kWarn;
  }
}

std::atomic<int>& level_storage() {
  static std::atomic<int> level{static_cast<int>(initial_level())};
  return level;
}

std::mutex& tag_mutex() {
  static std::mutex m;
  return m;
}

std::string& tag_storage() {  // guarded by tag_mutex()
  static std::string tag;
  return tag;
}

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(level_storage().load(std::memory_order_relaxed)); }

void set_log_level(LogLevel level) { level_storage().store(static_cast<int>(level)); }

LogLevel parse_log_level(std::string_view name) {
  for (int i = 0; i < 5; ++i)
    if (name == kNames[i]) return static_cast<LogLevel>(i);
  fail(ErrorCode::kInvalidArgument, "log level", "'{}' is not one of error, warn, info, debug, trace",
       name);
}

void set_log_tag(std::string_view tag) {
  std::lock_guard lock(tag_mutex());
  tag_storage() = tag.empty() ? std::string() : fmt::format("[{}] ", tag);
}

void log_message(LogLevel level, std::string_view message) {
  std::string tag;
  {
    std::lock_guard lock(tag_mutex());
    tag = tag_storage();
  }
  std::string line = fmt::format("ogai [{}] {}{}\n", kNames[static_cast<int>(level)], tag, message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ogai
