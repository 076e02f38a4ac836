// Why a looped workflow ended (digest §9.1, termination-predicate@2): its termination predicate
// says `done` when a row's token is among the first `eos_lengths[r]` entries of `eos_ids[r]`, or
// when the iteration reaches `max_iterations[r]`, and the two read the same. A caller that must
// tell "ended on EOS" (finish_reason stop) from "used its budget" (length) needs the first half
// alone: this recomputes it from the invoke's own inputs, found through the contract's binding
// roles (never through value names), after each trip of such an invoke.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "metadata/workflow.h"
#include "ort/tensor.h"

namespace ogai::workflow {

inline constexpr const char* kTerminationContract = "onnx-genai.termination-predicate";

// The positions, among an invoke's input ports, of the predicate's roles.
struct TerminationPorts {
  std::size_t tokens = 0, eos_ids = 0;
  std::optional<std::size_t> eos_lengths, active;
};

// The ports of `component` invoked with `in_ports`, when its contract is the termination
// predicate and the invoke binds its tokens and eos_ids roles; nullopt otherwise.
std::optional<TerminationPorts> termination_ports(const metadata::Component& component,
                                                  const std::vector<std::string>& in_ports);

// The predicate's inputs of one trip (null: an optional role the invoke left unfed).
struct TerminationInputs {
  const ort::Tensor* tokens = nullptr;
  const ort::Tensor* eos_ids = nullptr;
  const ort::Tensor* eos_lengths = nullptr;
  const ort::Tensor* active = nullptr;
};

// Updates `eos_rows` (one flag per row, grown to the batch): for each row active in this trip,
// whether its token is in its EOS table. Rows inactive in the trip keep their flag, so a row that
// ended on EOS keeps saying so while the others run on. Inputs that do not fit the contract
// (tokens [B], eos_ids [B, E] or [E], eos_lengths [B], active [B], integer or bool) are left
// alone: the invoke's port contracts refuse them with the port's name before this runs. Reads the
// tensors in place: nothing is allocated per trip but `eos_rows` growing to the batch once.
void note_termination(const TerminationInputs& in, std::vector<bool>& eos_rows);

}  // namespace ogai::workflow
