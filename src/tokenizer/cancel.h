// Cancelling a long encode: the tokenizer's pipeline, normalizers and BPE merge loop call
// check_cancelled() as they go, which polls the thread's ogai::CancelScope (base/cancel.h: one
// cancel token for a request's parse, translation, template render and tokenization) and throws
// ogai::Error kCancelled when the work is abandoned. Without a scope nothing is polled.
// Thread safety: as base/cancel.h (per thread).
#pragma once

#include <cstddef>

#include "base/cancel.h"

namespace ogai::tokenizer {

using ogai::CancelScope;
using ogai::kCancelPollEvery;

inline void check_cancelled() { ogai::check_cancelled("tokenize"); }

// Drops a thread_local scratch buffer's storage once one large input grew it past `keep`
// elements, so a burst of large texts does not leave megabytes per thread behind.
template <class Buffer>
void release_if_large(Buffer& buffer, std::size_t keep = 1 << 16) {
  if (buffer.capacity() > keep) Buffer().swap(buffer);
}

}  // namespace ogai::tokenizer
