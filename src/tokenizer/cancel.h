// Cancelling a long encode: a server tokenizing a multi-megabyte text for a client that left
// should stop within milliseconds, not after seconds of merges. A CancelScope installs a poll for
// the encodes its thread runs while it lives; the pipeline and the BPE merge loop call
// check_cancelled() as they go (cheap: the poll runs once every kEvery calls), which throws
// ogai::Error kCancelled when the poll answers true. Without a scope nothing is polled.
// Thread safety: the scope is per thread (thread_local); scopes nest (the innermost polls).
#pragma once

#include <cstddef>
#include <functional>

namespace ogai::tokenizer {

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

// Throws Error kCancelled when this thread's innermost scope's poll says the work is abandoned;
// polls once every kEvery calls.
void check_cancelled();
inline constexpr unsigned kCancelPollEvery = 1024;

// Drops a thread_local scratch buffer's storage once one large input grew it past `keep`
// elements, so a burst of large texts does not leave megabytes per thread behind.
template <class Buffer>
void release_if_large(Buffer& buffer, std::size_t keep = 1 << 16) {
  if (buffer.capacity() > keep) Buffer().swap(buffer);
}

}  // namespace ogai::tokenizer
