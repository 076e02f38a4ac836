// Finding 1 of issue 12: a request body of nested arrays under the 8 MB limit built a DOM of about
// 276 MB before any check. Measures the peak of live heap bytes while such bodies are refused
// (this binary counts every operator new/delete; it holds only this test).
#include <gtest/gtest.h>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "serve/common/api_error.h"
#include "serve/common/api_request.h"

namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};

void track(std::int64_t delta) {
  const std::int64_t now = g_live.fetch_add(delta) + delta;
  std::int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  track(static_cast<std::int64_t>(malloc_usable_size(p)));
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  track(-static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace ogai::serve {
namespace {

// Peak live heap bytes above the start while `body` is parsed and refused (400, param `field`).
std::int64_t peak_while_refused(const std::string& body, const char* field) {
  const std::int64_t start = g_live.load();
  g_peak = start;
  try {
    parse_completion_request(body);
    ADD_FAILURE() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, field) << e.message;
  }
  return g_peak.load() - start;
}

TEST(JsonMemory, NestedArraysUnderTheBodyLimitAreRefusedWithoutADom) {
  const std::size_t depth = 4'000'000;  // 8 MB of brackets
  const std::string body = R"({"model":"m","prompt":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
  const std::int64_t peak = peak_while_refused(body, "prompt");
  EXPECT_LT(peak, 1 << 20) << "peak heap bytes while refusing 8 MB of nested arrays";
}

TEST(JsonMemory, WideArraysUnderTheBodyLimitAreRefusedWithoutADom) {
  std::string body = R"({"model":"m","prompt":"x","stop":[)";
  for (int i = 0; i < 2'600'000; ++i) body += "[],";
  body += "[]]}";
  const std::int64_t peak = peak_while_refused(body, "stop");
  EXPECT_LT(peak, 16 << 20) << "peak heap bytes while refusing 8 MB of empty arrays";
}

}  // namespace
}  // namespace ogai::serve
