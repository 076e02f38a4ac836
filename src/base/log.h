// Leveled logging to stderr. The level comes from, in order: set_log_level(), the OGAI_LOG
// environment variable (error|warn|info|debug|trace), and defaults to warn. Thread-safe: each
// message is written with one call. Messages below the level cost one integer comparison.
// Format: text ("ogai [warn] message", the default) or JSON, one object a line
// ({"time":"2026-01-02T03:04:05.678Z","level":"warn","message":"..."}; set_log_format()).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace ogai {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3, kTrace = 4 };

LogLevel log_level();
void set_log_level(LogLevel level);
// Parses "error", "warn", "info", "debug", "trace"; throws ogai::Error otherwise.
LogLevel parse_log_level(std::string_view name);
void log_message(LogLevel level, std::string_view message);
// A tag every later message carries after its level, e.g. a server's replica id:
// "ogai [info] [r2] serve: draining ..."; "" (the default) for none.
void set_log_tag(std::string_view tag);
std::string log_tag();  // the tag set_log_tag() set ("" for none)

enum class LogFormat { kText, kJson };
LogFormat log_format();
void set_log_format(LogFormat format);
// `line` and a newline to stderr in one write, whatever the level and format (a record formatted
// by its writer, e.g. a JSON access-log object).
void log_line(std::string_view line);
// The current UTC time as RFC 3339 with milliseconds ("2026-01-02T03:04:05.678Z").
std::string log_timestamp();
// `text` as a JSON string literal, quotes included (control characters escaped; bytes >= 0x80 as they are).
std::string json_quoted(std::string_view text);

template <typename... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (static_cast<int>(level) <= static_cast<int>(log_level()))
    log_message(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace ogai
