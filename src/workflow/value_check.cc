#include "workflow/value_check.h"

#include "base/error.h"

namespace ogai::workflow {

ContractCheck compile_contract(const metadata::TensorContract& contract, const std::set<std::string>& dynamic) {
  ContractCheck check;
  check.contract = &contract;
  check.dtype = metadata::canonical_dtype(contract.dtype);
  if (!contract.shape) return check;
  check.dims.emplace();
  for (const auto& dim : *contract.shape) {
    ContractCheck::Dim d;
    if (dim.is_fixed())
      d.fixed = dim.value;
    else
      d.symbol = dim.symbol, d.dynamic = dynamic.count(dim.symbol) > 0;
    check.dims->push_back(d);
  }
  return check;
}

void check_value(const ContractCheck& check, const ort::Tensor& tensor, Symbols& symbols, const WhatFn& what,
                 std::int64_t skip_axis) {
  const auto& contract = *check.contract;
  if (!check.dtype || *check.dtype != tensor.dtype())
    fail(ErrorCode::kInvalidArgument, what(), "has dtype {}, but its contract is {}", dtype_name(tensor.dtype()),
         metadata::contract_text(contract));
  const auto& shape = tensor.shape();
  if (static_cast<std::int64_t>(shape.size()) != contract.rank)
    fail(ErrorCode::kInvalidArgument, what(), "has shape {} (rank {}), but its contract is {}",
         ort::shape_string(shape), shape.size(), metadata::contract_text(contract));
  if (!check.dims) return;
  const auto& dims = *check.dims;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (static_cast<std::int64_t>(i) == skip_axis) continue;
    const auto& dim = dims[i];
    if (dim.fixed >= 0) {
      if (dim.fixed != shape[i])
        fail(ErrorCode::kInvalidArgument, what(), "has shape {}, but its contract is {} (axis {} must be {})",
             ort::shape_string(shape), metadata::contract_text(contract), i, dim.fixed);
      continue;
    }
    if (dim.dynamic) continue;
    const std::int64_t bound = symbols.bind(dim.symbol, shape[i]);
    if (bound != shape[i])
      fail(ErrorCode::kInvalidArgument, what(), "has shape {}, but '{}' (axis {}) is already {} in this scope",
           ort::shape_string(shape), dim.symbol, i, bound);
  }
}

void check_value(const metadata::TensorContract& contract, const ort::Tensor& tensor, Symbols& symbols,
                 const std::set<std::string>& dynamic, const WhatFn& what, std::int64_t skip_axis) {
  check_value(compile_contract(contract, dynamic), tensor, symbols, what, skip_axis);
}

ort::Shape implied_shape(const metadata::TensorContract& contract, const Symbols& symbols) {
  ort::Shape shape(static_cast<std::size_t>(contract.rank), 1);
  if (!contract.shape) return shape;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const auto& dim = (*contract.shape)[i];
    if (dim.is_fixed())
      shape[i] = dim.value;
    else if (const auto* bound = symbols.find(dim.symbol))
      shape[i] = *bound;
  }
  return shape;
}

}  // namespace ogai::workflow
