#include "serve/engine/grammar_pool.h"

#include <boost/asio/post.hpp>
#include <fmt/format.h>

#include "base/log.h"
#include "serve/common/response_format.h"

namespace ogai::serve {
namespace {

std::size_t format_key(const ResponseFormat& f) {
  return std::hash<std::string>{}(f.text) ^ (static_cast<std::size_t>(f.kind) * 0x9e3779b97f4a7c15ULL) ^
         (f.strict ? 0x5bd1e995ULL : 0);
}

}  // namespace

GrammarPool::GrammarPool(GrammarLimits limits) : limits_(limits), pool_(static_cast<std::size_t>(limits.threads)) {}

GrammarPool::~GrammarPool() { pool_.join(); }

bool GrammarPool::needs(const ApiRequest& request) {
  return request.options.response_format.has_value() || !request.chat.tools.empty();
}

void GrammarPool::check_size(const ApiRequest& request) const {
  auto over = [&](const std::string& param, std::size_t bytes) {
    if (bytes <= limits_.max_bytes) return;
    throw invalid_request(param, fmt::format("{}: {} bytes of schema or grammar text, over the server's limit of {} "
                                             "bytes (--max-grammar-bytes)", param, bytes, limits_.max_bytes),
                          "grammar_too_large");
  };
  if (request.options.response_format) over("response_format", request.options.response_format->text.size());
  std::size_t tools = 0;
  for (const Tool& t : request.chat.tools) tools += t.parameters.size() + t.name.size();
  over("tools", tools);
}

bool GrammarPool::post(std::function<void()> work) {
  if (waiting_.fetch_add(1) >= limits_.queue + limits_.threads) {
    waiting_.fetch_sub(1);
    return false;
  }
  boost::asio::post(pool_, [this, work = std::move(work)] {
    try {
      work();
    } catch (const std::exception& e) {
      log(LogLevel::kError, "serve: a grammar step failed: {}", e.what());
    } catch (...) {
      log(LogLevel::kError, "serve: a grammar step failed");
    }
    waiting_.fetch_sub(1);
  });
  return true;
}

CompileBudget GrammarPool::budget(std::function<bool()> cancelled) const {
  return {limits_.seconds, "--grammar-timeout", std::move(cancelled)};
}

void GrammarPool::check_format(const ResponseFormat& format) {
  const std::size_t key = format_key(format);
  if (auto outcome = cached(key)) {
    if (*outcome) throw **outcome;
    return;
  }
  try {
    check_response_format_field(format);
  } catch (const ApiError& e) {
    remember(key, e);
    throw;
  }  // kCancelled (the client left) is not an outcome of the format: not kept
  remember(key, std::nullopt);
}

std::optional<std::optional<ApiError>> GrammarPool::cached(std::size_t key) {
  std::lock_guard lock(mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second.second);
  return it->second.first;
}

void GrammarPool::remember(std::size_t key, std::optional<ApiError> outcome) {
  std::lock_guard lock(mutex_);
  if (auto it = cache_.find(key); it != cache_.end()) {
    order_.erase(it->second.second);
    cache_.erase(it);
  }
  order_.push_front(key);
  cache_.emplace(key, std::make_pair(std::move(outcome), order_.begin()));
  while (cache_.size() > kCachedFormats) {
    cache_.erase(order_.back());
    order_.pop_back();
  }
}

}  // namespace ogai::serve
