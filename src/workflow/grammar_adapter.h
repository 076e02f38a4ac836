// The native onnx-genai.grammar-guidance@1 adapter (digest §8): a table-driven grammar walked
// per row. Roles (through contract.bindings): state int64[B], tokens int64[B,W], valid_length
// int64[B], transition_table int64[S,V] (-1 = refused) -> next_state [B], consumed_length [B],
// logits_mask bool[B,V], forced_tokens int64[B,1], forced_length [B]. `parameters.action`:
//   clone     walk nothing (the state passes through);
//   lookahead walk up to valid_length[r] tokens, stopping at the first refused transition;
//   commit    walk exactly valid_length[r] tokens; a refused one is an error.
// Cost O(B * (W + V)). Pure function; thread-safe. Registered as grammar-guidance@1 through
// make_grammar_adapter (adapter.h), which reads the action at load.
#pragma once

#include <map>
#include <string>

#include "metadata/workflow.h"
#include "ort/tensor.h"
#include "workflow/adapter.h"

namespace ogai::workflow {

enum class GrammarAction { kClone, kLookahead, kCommit };

// The component's action; throws naming `path` when it is missing or unknown.
GrammarAction grammar_action(const metadata::Component& component, const std::string& path);

// Inputs and outputs keyed by role. Throws kInvalidArgument naming `what` (the step) on bad
// shapes or a rejected committed token.
std::map<std::string, ort::Tensor> run_grammar(GrammarAction action, const std::map<std::string, const ort::Tensor*>& in,
                                               const std::string& what);

// The adapter factory: reads the action (throws naming site.path), runs run_grammar.
std::unique_ptr<const Adapter> make_grammar_adapter(const AdapterSite& site);

}  // namespace ogai::workflow
