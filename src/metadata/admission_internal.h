// Internal: shared state of the admission checks (admission.cc: R1–R3, admission_state.cc:
// R4–R8).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "metadata/admission.h"

namespace ogai::metadata::detail {

struct Admission {
  const Document& doc;
  const PackageFiles& files;
  Diagnostics& diags;
  std::map<std::string, onnx::GraphInfo> graphs;
  std::map<std::string, std::optional<TensorContract>> values;  // workflow value contracts

  const onnx::GraphInfo* graph(const std::string& component) const {
    auto it = graphs.find(component);
    return it == graphs.end() ? nullptr : &it->second;
  }
};

// Empty when the graph value satisfies `contract` (dtype, rank, fixed dims); otherwise what differs.
std::string port_mismatch(const TensorContract& contract, const onnx::ValueInfo& value);
std::string value_text(const onnx::ValueInfo& value);  // "float16[batch, 2, seq, 8]"

void check_overrides(Admission& a);        // R4
void check_kv_ports(Admission& a);         // R5
void check_speculative_graphs(Admission& a);  // R6
void check_aliasing_required(Admission& a);   // R7
void check_static_cache(Admission& a);        // R8

}  // namespace ogai::metadata::detail
