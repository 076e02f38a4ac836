#include "workflow/termination.h"

#include <algorithm>

namespace ogai::workflow {
namespace {

std::optional<std::size_t> position_of(const metadata::ComponentContract& contract,
                                       const std::vector<std::string>& in_ports, const char* role) {
  const std::string* port = metadata::find_named(contract.bindings, role);
  if (!port) return std::nullopt;
  const auto it = std::find(in_ports.begin(), in_ports.end(), *port);
  if (it == in_ports.end()) return std::nullopt;
  return static_cast<std::size_t>(it - in_ports.begin());
}

// Integer or bool tensors, read in place (no copy per trip): the predicate runs every trip.
bool readable(const ort::Tensor* t) {
  return t && (t->dtype() == DataType::kInt64 || t->dtype() == DataType::kInt32 || t->dtype() == DataType::kBool);
}

std::int64_t at(const ort::Tensor& t, std::size_t i) {
  switch (t.dtype()) {
    case DataType::kInt64:
      return t.span<std::int64_t>()[i];
    case DataType::kInt32:
      return t.span<std::int32_t>()[i];
    default:
      return t.span<bool>()[i] ? 1 : 0;
  }
}

std::size_t count(const ort::Tensor& t) { return static_cast<std::size_t>(t.element_count()); }

}  // namespace

std::optional<TerminationPorts> termination_ports(const metadata::Component& component,
                                                  const std::vector<std::string>& in_ports) {
  if (!component.contract || component.contract->id != kTerminationContract) return std::nullopt;
  const auto& contract = *component.contract;
  const auto tokens = position_of(contract, in_ports, "tokens");
  const auto eos_ids = position_of(contract, in_ports, "eos_ids");
  if (!tokens || !eos_ids) return std::nullopt;
  return TerminationPorts{*tokens, *eos_ids, position_of(contract, in_ports, "eos_lengths"),
                          position_of(contract, in_ports, "active")};
}

void note_termination(const TerminationInputs& in, std::vector<bool>& eos_rows) {
  if (!readable(in.tokens) || !readable(in.eos_ids)) return;
  if ((in.eos_lengths && !readable(in.eos_lengths)) || (in.active && !readable(in.active))) return;
  const std::size_t rows = count(*in.tokens);
  const auto& shape = in.eos_ids->shape();
  const bool per_row = shape.size() == 2;
  if (shape.size() > 2 || (per_row && static_cast<std::size_t>(shape[0]) != rows)) return;
  if ((in.eos_lengths && count(*in.eos_lengths) != rows) || (in.active && count(*in.active) != rows)) return;
  const std::size_t width = per_row ? static_cast<std::size_t>(shape[1]) : count(*in.eos_ids);
  if (eos_rows.size() < rows) eos_rows.resize(rows, false);
  for (std::size_t r = 0; r < rows; ++r) {
    if (in.active && at(*in.active, r) == 0) continue;
    const std::int64_t length = in.eos_lengths ? at(*in.eos_lengths, r) : static_cast<std::int64_t>(width);
    const std::size_t n = std::min<std::size_t>(width, static_cast<std::size_t>(std::max<std::int64_t>(length, 0)));
    const std::size_t first = per_row ? r * width : 0;
    const std::int64_t token = at(*in.tokens, r);
    bool eos = false;
    for (std::size_t e = 0; e < n && !eos; ++e) eos = at(*in.eos_ids, first + e) == token;
    eos_rows[r] = eos;
  }
}

}  // namespace ogai::workflow
