#include "sampling/token_allowlist.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::sampling {
namespace {

class AllowlistState final : public ConstraintState {
 public:
  explicit AllowlistState(AllowedTokens set) : set_(set) {}
  AllowedTokens allowed() override { return set_; }
  void accept(TokenId) override {}
  bool complete() const override { return true; }

 private:
  AllowedTokens set_;
};

}  // namespace

TokenAllowlist::TokenAllowlist(std::vector<TokenId> ids) {
  if (ids.empty()) fail(ErrorCode::kInvalidArgument, "allowed_token_ids", "the list is empty; no token could follow");
  for (TokenId id : ids) {
    if (id < 0) fail(ErrorCode::kInvalidArgument, "allowed_token_ids", "token id {} is negative", id);
    ids_.push_back(static_cast<std::int32_t>(id));
  }
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  words_.assign(static_cast<std::size_t>(ids_.back()) / 64 + 1, 0);
  for (std::int32_t id : ids_) words_[static_cast<std::size_t>(id) / 64] |= std::uint64_t{1} << (id % 64);
}

std::unique_ptr<ConstraintState> TokenAllowlist::start() const {
  return std::make_unique<AllowlistState>(AllowedTokens{words_, ids_, true});
}

}  // namespace ogai::sampling
