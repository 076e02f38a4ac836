#include "base/log.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "base/error.h"
#include "base/log_bound.h"

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

std::atomic<int>& format_storage() {
  static std::atomic<int> format{static_cast<int>(LogFormat::kText)};
  return format;
}

std::mutex& tag_mutex() {
  static std::mutex m;
  return m;
}

std::string& tag_storage() {  // guarded by tag_mutex(); the raw tag ("" for none)
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
  tag_storage() = std::string(tag);
}

std::string log_tag() {
  std::lock_guard lock(tag_mutex());
  return tag_storage();
}

std::string bounded_log_text(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t keep = limit;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // not mid-character
  return fmt::format("{}... [{} bytes cut]", text.substr(0, keep), text.size() - keep);
}

void log_message(LogLevel level, std::string_view full_message) {
  const std::string bounded = bounded_log_text(full_message, kMaxLogMessageBytes);
  const std::string_view message = bounded;
  const std::string tag = log_tag();
  const char* name = kNames[static_cast<int>(level)];
  if (log_format() == LogFormat::kJson) {
    std::string replica = tag.empty() ? std::string() : fmt::format(R"(,"replica":{})", json_quoted(tag));
    return log_line(fmt::format(R"({{"time":"{}","level":"{}"{},"message":{}}})", log_timestamp(), name, replica,
                                json_quoted(message)));
  }
  log_line(fmt::format("ogai [{}] {}{}", name, tag.empty() ? std::string() : "[" + tag + "] ", message));
}

LogFormat log_format() { return static_cast<LogFormat>(format_storage().load(std::memory_order_relaxed)); }

void set_log_format(LogFormat format) { format_storage().store(static_cast<int>(format)); }

void log_line(std::string_view line) {
  std::string out = bounded_log_text(line, kMaxLogLineBytes);
  out += '\n';
  std::fwrite(out.data(), 1, out.size(), stderr);
}

std::string log_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:03}Z", text, millis);
}

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else out += c;
    }
  }
  return out + "\"";
}

}  // namespace ogai
