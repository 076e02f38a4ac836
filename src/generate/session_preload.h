// SessionPreload: a package's secondary ONNX Runtime sessions (the embedding stage, the media
// encoders, an assistant drafter) created on background threads while the loading thread creates
// the decoder's, so that a package starts in about the time of its slowest session rather than the
// sum of all (issue 36 item 4; bench/parallel_load_bench.py measures it).
//
// take() hands a started session to the constructor that needs it, waiting for it to finish; an
// error raised while creating it is rethrown there, where a serial load would have raised it. A
// graph nobody started is opened by take() on the calling thread. Every session is created with the
// options given to the constructor (the loader passes the same ones to every stage); a graph is
// started once and can be taken once. Not thread-safe: the loading thread alone calls take(). The
// destructor waits for sessions nobody took and drops them (an error in them is dropped too).
// OGAI_PARALLEL_LOAD=0 turns preloading off (every session then opens in turn, as before).
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <vector>

#include "ort/session.h"

namespace ogai::generate {

class SessionPreload {
 public:
  SessionPreload(const std::vector<std::filesystem::path>& graphs, const ort::SessionOptions& options);
  SessionPreload(const SessionPreload&) = delete;
  SessionPreload& operator=(const SessionPreload&) = delete;
  ~SessionPreload() = default;  // each future's destructor waits for its session

  ort::Session take(const std::filesystem::path& graph, const ort::SessionOptions& options);
  std::size_t started() const { return started_.size(); }

  static bool enabled();  // false when OGAI_PARALLEL_LOAD is "0"

 private:
  std::map<std::filesystem::path, std::future<ort::Session>> started_;
};

// `graph` through `preload` when there is one, else opened now.
ort::Session open_graph(SessionPreload* preload, const std::filesystem::path& graph, const ort::SessionOptions& options);

}  // namespace ogai::generate
