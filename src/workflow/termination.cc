#include "workflow/termination.h"

#include <algorithm>

#include "workflow/tensor_ops.h"

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

bool is_int(const ort::Tensor& t) { return t.dtype() == DataType::kInt64 || t.dtype() == DataType::kInt32; }

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
  if (!in.tokens || !in.eos_ids || !is_int(*in.tokens) || !is_int(*in.eos_ids)) return;
  const auto tokens = int_values(*in.tokens, "tokens");
  const auto table = int_values(*in.eos_ids, "eos_ids");
  const auto rows = tokens.size();
  const auto& shape = in.eos_ids->shape();
  const bool per_row = shape.size() == 2;
  if (shape.size() > 2 || (per_row && static_cast<std::size_t>(shape[0]) != rows)) return;
  const std::size_t width = per_row ? static_cast<std::size_t>(shape[1]) : table.size();
  std::vector<std::int64_t> lengths;
  if (in.eos_lengths && is_int(*in.eos_lengths)) lengths = int_values(*in.eos_lengths, "eos_lengths");
  std::vector<bool> active;
  if (in.active) active = bool_values(*in.active, "active");
  if (!lengths.empty() && lengths.size() != rows) return;
  if (!active.empty() && active.size() != rows) return;
  if (eos_rows.size() < rows) eos_rows.resize(rows, false);
  for (std::size_t r = 0; r < rows; ++r) {
    if (!active.empty() && !active[r]) continue;
    const std::size_t n = lengths.empty() ? width : std::min<std::size_t>(width, std::max<std::int64_t>(lengths[r], 0));
    const auto* row = table.data() + (per_row ? r * width : 0);
    eos_rows[r] = std::find(row, row + n, tokens[r]) != row + n;
  }
}

}  // namespace ogai::workflow
