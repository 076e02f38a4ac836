// The length bound on log lines (base/log.h writes through it): a message longer than
// kMaxLogMessageBytes is cut at a UTF-8 character boundary and ends with "... [N bytes cut]", so a
// huge value quoted in a message (a body of 40,000 unknown fields) cannot write megabytes to the
// log; a whole line (log_line, e.g. an access-log record) is cut the same way past
// kMaxLogLineBytes. Thread-safe (no state).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ogai {

inline constexpr std::size_t kMaxLogMessageBytes = 16 * 1024;
inline constexpr std::size_t kMaxLogLineBytes = 4 * kMaxLogMessageBytes;

// `text` cut to at most `limit` bytes plus the marker (unchanged when it fits).
std::string bounded_log_text(std::string_view text, std::size_t limit);

}  // namespace ogai
