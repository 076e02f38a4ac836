// StopStringMatcher: finds stop strings in streamed text without ever emitting part of one.
//
// feed() takes the text of each new token (any chunking, bytes of UTF-8) and returns the text that
// is now safe to show: everything except the longest suffix that is a proper prefix of some stop
// string, which is held back until later text decides it. A stop string split across any number
// of chunks is found; text emitted before it is exactly the text before the stop string, and the
// stop string itself is never emitted.
//
// Which match wins: the occurrence that ends first in the text; among occurrences ending at the
// same place, the longest (earliest start). This depends only on the text, never on how it was
// chunked (feeding "abcd" at once or one byte at a time stops at the same place).
//
// After a stop, further feed() calls throw (a bug in the caller). finish() releases the held-back
// text when generation ends for another reason. Not thread-safe. Allocates only as the held-back
// buffer grows (bounded by the longest stop string plus one chunk).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ogai::sampling {

struct StopFeedResult {
  std::string text;      // newly safe text (before the stop string when stopped)
  bool stopped = false;  // a stop string completed
  int stop_index = -1;   // which of the stop strings (index into the constructor's list)
};

class StopStringMatcher {
 public:
  // Throws ogai::Error for an empty stop string. No stop strings: feed() passes text through.
  explicit StopStringMatcher(std::vector<std::string> stop_strings);

  StopFeedResult feed(std::string_view chunk);
  // Returns the held-back text (nothing after a stop) and ends the stream.
  std::string finish();

  bool stopped() const { return stopped_; }
  const std::vector<std::string>& stop_strings() const { return stops_; }

 private:
  // Length of the longest suffix of pending_ that is a proper prefix of a stop string.
  size_t held_back_length() const;
  // Earliest-ending match in pending_: sets *start and returns the stop index, or -1.
  int find_match(size_t* start) const;

  std::vector<std::string> stops_;
  size_t longest_ = 0;
  std::string pending_;  // text received but not yet emitted
  bool stopped_ = false;
  bool finished_ = false;
};

}  // namespace ogai::sampling
