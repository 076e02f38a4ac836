// Checking a tensor against a declared TensorContract (digest §3): dtype (aliases normalized),
// rank, fixed dims, and symbolic dims unified through a symbol table. Symbols named in `dynamic`
// (the growing/bounded axes of state cells) are never pinned. `skip_axis` (>= 0) is not checked
// (the growth axis of an appended chunk). Errors name `what` (the value and the step).
//
// A ContractCheck is a contract compiled once (the dtype name resolved, the dynamic symbols
// marked): checking a tensor against it looks nothing up by name and allocates nothing.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata/contract.h"
#include "ort/tensor.h"

namespace ogai::workflow {

// A symbol table: a handful of (symbol, extent) pairs, searched linearly (cheaper than a map at
// the sizes contracts have), held inline up to eight symbols (copies and binds allocate nothing).
// The names are views: they must outlive the table (a Program's contracts, or literals).
class Symbols {
 public:
  Symbols() = default;
  Symbols(std::initializer_list<std::pair<std::string_view, std::int64_t>> init) {
    for (const auto& [name, value] : init) bind(name, value);
  }
  const std::int64_t* find(std::string_view name) const {
    for (std::size_t i = 0; i < size_ && i < kInline; ++i)
      if (inline_[i].first == name) return &inline_[i].second;
    for (const auto& [key, value] : more_)
      if (key == name) return &value;
    return nullptr;
  }
  // The extent bound to `name`, binding it to `value` first when it is unbound.
  std::int64_t bind(std::string_view name, std::int64_t value) {
    if (const auto* bound = find(name)) return *bound;
    if (size_ < kInline)
      inline_[size_] = {name, value};
    else
      more_.emplace_back(name, value);
    ++size_;
    return value;
  }

 private:
  static constexpr std::size_t kInline = 8;
  std::array<std::pair<std::string_view, std::int64_t>, kInline> inline_{};
  std::vector<std::pair<std::string_view, std::int64_t>> more_;
  std::size_t size_ = 0;
};

// Builds the "what" of an error message; called only when a check fails (the hot path formats
// nothing). A non-owning reference to a callable (no allocation per check): valid only while the
// callable it was made from lives, i.e. within the call it is passed to.
class WhatFn {
 public:
  template <class F>
  WhatFn(const F& f) : object_(&f), call_([](const void* o) { return (*static_cast<const F*>(o))(); }) {}  // NOLINT
  std::string operator()() const { return call_(object_); }

 private:
  const void* object_;
  std::string (*call_)(const void*);
};

// A contract prepared for checking; refers to `contract`, which must outlive it.
struct ContractCheck {
  struct Dim {
    std::int64_t fixed = -1;  // >= 0: this extent exactly
    std::string_view symbol;  // otherwise: unified through the symbol table...
    bool dynamic = false;     // ...unless it is a dynamic symbol (never pinned)
  };
  const metadata::TensorContract* contract = nullptr;
  std::optional<DataType> dtype;         // nullopt: a name outside the vocabulary (every tensor fails)
  std::optional<std::vector<Dim>> dims;  // nullopt: the contract has no shape
};
ContractCheck compile_contract(const metadata::TensorContract& contract, const std::set<std::string>& dynamic);

void check_value(const ContractCheck& check, const ort::Tensor& tensor, Symbols& symbols, const WhatFn& what,
                 std::int64_t skip_axis = -1);
void check_value(const metadata::TensorContract& contract, const ort::Tensor& tensor, Symbols& symbols,
                 const std::set<std::string>& dynamic, const WhatFn& what, std::int64_t skip_axis = -1);
inline void check_value(const metadata::TensorContract& contract, const ort::Tensor& tensor, Symbols& symbols,
                        const std::set<std::string>& dynamic, const std::string& what, std::int64_t skip_axis = -1) {
  check_value(contract, tensor, symbols, dynamic, WhatFn([&] { return what; }), skip_axis);
}

// The shape a contract implies under `symbols`; an unbound symbol becomes 1. A contract without
// a shape gives rank-many 1s.
ort::Shape implied_shape(const metadata::TensorContract& contract, const Symbols& symbols);

}  // namespace ogai::workflow
