#include "base/cancel.h"

#include "base/error.h"

namespace ogai {
namespace {

thread_local const std::function<bool()>* current = nullptr;
thread_local unsigned calls = 0;

}  // namespace

CancelScope::CancelScope(std::function<bool()> gone) : gone_(std::move(gone)), outer_(current) { current = &gone_; }

CancelScope::~CancelScope() { current = outer_; }

void check_cancelled(const char* where) {
  if (current == nullptr || ++calls % kCancelPollEvery != 0) return;
  check_cancelled_now(where);
}

void check_cancelled_now(const char* where) {
  if (current != nullptr && (*current)()) fail(ErrorCode::kCancelled, where, "the work was cancelled (its client left)");
}

}  // namespace ogai
