#include "sampling/stop_strings.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::sampling {

StopStringMatcher::StopStringMatcher(std::vector<std::string> stop_strings)
    : stops_(std::move(stop_strings)) {
  for (size_t i = 0; i < stops_.size(); ++i) {
    if (stops_[i].empty()) {
      fail(ErrorCode::kInvalidArgument, fmt::format("stop[{}]", i),
           "a stop string is empty; it must contain at least one character");
    }
    longest_ = std::max(longest_, stops_[i].size());
  }
}

int StopStringMatcher::find_match(size_t* start) const {
  int best = -1;
  size_t best_end = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    size_t at = pending_.find(stops_[i]);
    if (at == std::string::npos) continue;
    size_t end = at + stops_[i].size();
    if (best < 0 || end < best_end || (end == best_end && at < *start)) {
      best = static_cast<int>(i);
      best_end = end;
      *start = at;
    }
  }
  return best;
}

size_t StopStringMatcher::held_back_length() const {
  size_t max_len = std::min(pending_.size(), longest_ > 0 ? longest_ - 1 : 0);
  std::string_view text(pending_);
  for (size_t len = max_len; len > 0; --len) {
    std::string_view suffix = text.substr(text.size() - len);
    for (const std::string& stop : stops_) {
      if (stop.size() > len && std::string_view(stop).substr(0, len) == suffix) return len;
    }
  }
  return 0;
}

StopFeedResult StopStringMatcher::feed(std::string_view chunk) {
  if (stopped_ || finished_) {
    fail(ErrorCode::kInternal, "StopStringMatcher::feed", "called after the stream {}",
         stopped_ ? "stopped" : "finished");
  }
  pending_.append(chunk);
  StopFeedResult result;
  size_t start = 0;
  result.stop_index = find_match(&start);
  if (result.stop_index >= 0) {
    result.stopped = stopped_ = true;
    result.text = pending_.substr(0, start);
    pending_.clear();
    return result;
  }
  size_t emit = pending_.size() - held_back_length();
  result.text = pending_.substr(0, emit);
  pending_.erase(0, emit);
  return result;
}

std::string StopStringMatcher::finish() {
  finished_ = true;
  std::string rest;
  rest.swap(pending_);
  return rest;
}

}  // namespace ogai::sampling
