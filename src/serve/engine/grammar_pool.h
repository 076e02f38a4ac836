// GrammarPool: where the server compiles structured-output grammars (a response_format schema,
// regex or grammar; tool parameter schemas), apart from the route threads that parse requests and
// drive streams, so that no request's schema can stall another's answer or stream. It has its own
// bounded pool (`threads`, and at most `queue` requests waiting: one more is refused 429), a time
// budget per request (CompileBudgetScope, include/ogai/options.h: over it, a 400 naming
// --grammar-timeout), a size budget (check_size(): a 400 naming --max-grammar-bytes before any
// work), and a cache of the response formats' outcomes by hash (a format compiled once is not
// checked again; one refused, or over the time budget, is refused at once). A request whose client
// went away is dropped before its turn, and its compilation stops when polled (kCancelled).
// Thread-safe.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"
#include "serve/common/api_request.h"
#include "serve/server.h"

namespace ogai::serve {


class GrammarPool {
 public:
  static constexpr std::size_t kCachedFormats = 256;  // outcomes kept (least recently used goes first)

  explicit GrammarPool(GrammarLimits limits);
  ~GrammarPool();  // waits for the running compilations
  GrammarPool(const GrammarPool&) = delete;
  GrammarPool& operator=(const GrammarPool&) = delete;

  // Whether `request` has a grammar to compile (a response_format, or tools offered).
  static bool needs(const ApiRequest& request);
  // Throws a 400 naming the limit when the request's grammar text is over max_bytes.
  void check_size(const ApiRequest& request) const;
  // Runs `work` on a compile thread; false (nothing runs) when `queue` requests already wait.
  bool post(std::function<void()> work);
  // On a compile thread, inside the request's budget: compiles the response format (unless its
  // outcome is cached), throwing its ApiError.
  void check_format(const ResponseFormat& format);
  // The budget scope the compile thread holds around a request's work.
  CompileBudget budget(std::function<bool()> cancelled) const;
  const GrammarLimits& limits() const { return limits_; }

 private:
  std::optional<std::optional<ApiError>> cached(std::size_t key);
  void remember(std::size_t key, std::optional<ApiError> outcome);

  const GrammarLimits limits_;
  std::atomic<int> waiting_{0};
  std::mutex mutex_;  // guards the cache
  std::list<std::size_t> order_;  // most recent first
  std::unordered_map<std::size_t, std::pair<std::optional<ApiError>, std::list<std::size_t>::iterator>> cache_;
  boost::asio::thread_pool pool_;  // last: joined first
};

}  // namespace ogai::serve
