// Host tensor helpers for the workflow interpreter: shared immutable values, integer/bool reads of
// small control tensors, literal materialization, and byte-level slicing and concatenation along an
// axis (any fixed-size dtype). Every function copies: costs are O(bytes touched), never hidden
// behind an alias. CPU tensors only. Thread-safe (no shared state).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ort/tensor.h"
#include "workflow/value_check.h"

namespace ogai::workflow {

using ort::Shape;
using ort::Tensor;
// A value of the workflow store: immutable once stored, shared between scopes (branch copies).
using Value = std::shared_ptr<const Tensor>;

inline Value share(Tensor tensor) { return std::make_shared<const Tensor>(std::move(tensor)); }

// The elements of an integer or bool tensor as int64 (float tensors are refused, naming `what`).
std::vector<std::int64_t> int_values(const Tensor& tensor, const std::string& what);
// The elements of a bool tensor (integers: nonzero is true; float refused).
std::vector<bool> bool_values(const Tensor& tensor, const std::string& what);
// Same into `out` (cleared first; its capacity is reused), `what` formatted only on failure.
void int_values_into(const Tensor& tensor, std::vector<std::int64_t>& out, const WhatFn& what);
// The single integer of a `[]` or `[1]` tensor.
std::int64_t single_int(const Tensor& tensor, const std::string& what);

// A tensor of `dtype` and `shape` from a JSON scalar (repeated) or flat/nested list (row-major,
// exactly element_count(shape) numbers). Integers must fit `dtype`; strings are refused.
Tensor from_json_values(DataType dtype, const Shape& shape, const nlohmann::json& values, const std::string& what);
// An int64 tensor of `shape` filled with `value`.
Tensor filled_int64(const Shape& shape, std::int64_t value);

// Elements [begin, begin + length) along `axis`.
Tensor slice_axis(const Tensor& tensor, std::int64_t axis, std::int64_t begin, std::int64_t length);
// a ++ b along `axis`; dtypes, ranks and every other dim must agree (throws naming `what`).
Tensor concat_axis(const Tensor& a, const Tensor& b, std::int64_t axis, const std::string& what);
// A copy of `next` where every element of `old` whose coordinate on `batch_axis` is a row with
// keep[row] == true is restored from `old`. `old` may be shorter than `next` on one other axis
// (monotonic growth); every other dim must be equal.
Tensor restore_rows(const Tensor& old, const Tensor& next, std::int64_t batch_axis, const std::vector<bool>& keep);

// The elements as JSON numbers / booleans, row-major (float16/bfloat16 widened to float).
nlohmann::json values_json(const Tensor& tensor);

}  // namespace ogai::workflow
