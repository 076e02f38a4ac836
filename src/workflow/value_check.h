// Checking a tensor against a declared TensorContract (digest §3): dtype (aliases normalized),
// rank, fixed dims, and symbolic dims unified through a symbol table. Symbols named in `dynamic`
// (the growing/bounded axes of state cells) are never pinned. `skip_axis` (>= 0) is not checked
// (the growth axis of an appended chunk). Errors name `what` (the value and the step).
#pragma once

#include <cstdint>
#include <map>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata/contract.h"
#include "ort/tensor.h"

namespace ogai::workflow {

// A symbol table: a handful of (symbol, extent) pairs, searched linearly (cheaper than a map at
// the sizes contracts have; nothing is allocated until the first symbol binds).
class Symbols {
 public:
  Symbols() = default;
  Symbols(std::initializer_list<std::pair<std::string, std::int64_t>> init) : entries_(init) {}
  const std::int64_t* find(std::string_view name) const {
    for (const auto& [key, value] : entries_)
      if (key == name) return &value;
    return nullptr;
  }
  // The extent bound to `name`, binding it to `value` first when it is unbound.
  std::int64_t bind(std::string_view name, std::int64_t value) {
    if (const auto* bound = find(name)) return *bound;
    entries_.emplace_back(std::string(name), value);
    return value;
  }

 private:
  std::vector<std::pair<std::string, std::int64_t>> entries_;
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
