// Cancelling a request's work on the thread that does it: a server parsing, translating, rendering
// or tokenizing a multi-megabyte body for a client that left should stop within milliseconds. A
// CancelScope installs a poll for the work its thread runs while it lives; long loops (the request
// JSON parse, the Responses and Messages translations, the chat template's statements, the
// tokenizer's pipeline and merges) call check_cancelled() as they go (cheap: the poll runs once
// every kCancelPollEvery calls), which throws ogai::Error kCancelled when the poll answers true.
// Without a scope nothing is polled and check_cancelled() costs a counter increment.
// Thread safety: the scope is per thread (thread_local); scopes nest (the innermost polls). The
// poll must be safe to call from the scope's thread (an atomic flag read, typically).
#pragma once

#include <functional>

namespace ogai {

class CancelScope {
 public:
  explicit CancelScope(std::function<bool()> gone);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  std::function<bool()> gone_;
  const std::function<bool()>* outer_;
};

// Throws Error kCancelled (`where` names the work) when this thread's innermost scope's poll says
// the work is abandoned; polls once every kCancelPollEvery calls.
void check_cancelled(const char* where);
inline constexpr unsigned kCancelPollEvery = 1024;
// The same, polling at once (for loops that count their own interval, e.g. every 64 KiB of text).
void check_cancelled_now(const char* where);

}  // namespace ogai
