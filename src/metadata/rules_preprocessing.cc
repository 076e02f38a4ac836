// V-PREPROC: a declarative `preprocessing.image` / `preprocessing.audio` program and the one
// onnx-genai.{image,audio}-preprocess@1 adapter component that runs it. The program's outputs are
// SSA values of the adapter's single invocation, each with a contract equal to the adapter port
// it leaves through (dtype up to aliases, rank, shape and batch layout), so rows cannot drift.
#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

// The outputs map of every invocation of `component`, setup, bodies and cases included.
void find_invocations(const std::vector<Step>& steps, const std::string& component,
                      std::vector<const NamedMap<std::string>*>& out) {
  for (const Step& s : steps) {
    if (const auto* inv = std::get_if<InvokeStep>(&s.body)) {
      if (inv->component == component) out.push_back(&inv->outputs);
    } else if (const auto* seq = std::get_if<SequenceStep>(&s.body)) {
      find_invocations(seq->steps, component, out);
    } else if (const auto* l = std::get_if<LoopStep>(&s.body)) {
      find_invocations(l->setup, component, out);
      find_invocations(l->steps, component, out);
    } else if (const auto* b = std::get_if<BranchStep>(&s.body)) {
      for (const BranchCase& c : b->cases) find_invocations(c.body, component, out);
      find_invocations(b->default_step, component, out);
    }
  }
}

// A program output's contract (JSON as written) equals a port contract.
bool same_contract(const nlohmann::json& c, const TensorContract& port) {
  if (!c.is_object() || !c.value("dtype", nlohmann::json()).is_string()) return false;
  auto dtype = canonical_dtype(c["dtype"].get<std::string>());
  if (!dtype || dtype != canonical_dtype(port.dtype) || c.value("rank", -1) != port.rank) return false;
  const nlohmann::json shape = c.value("shape", nlohmann::json());
  if (shape.is_null() != !port.shape) return false;
  if (port.shape) {
    if (!shape.is_array() || shape.size() != port.shape->size()) return false;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const ShapeDim& d = (*port.shape)[i];
      bool same = d.is_fixed() ? shape[i].is_number_integer() && shape[i].get<std::int64_t>() == d.value
                               : shape[i].is_string() && shape[i].get<std::string>() == d.symbol;
      if (!same) return false;
    }
  }
  const nlohmann::json layout = c.value("batch_layout", nlohmann::json::object());
  const std::string kind = layout.value("kind", "shared");
  if (kind != batch_layout_name(port.batch_layout.kind)) return false;
  if (kind == "shared") return true;
  return layout.value("axis", std::int64_t{0}) == port.batch_layout.axis &&
         layout.value("factor", std::int64_t{1}) == port.batch_layout.factor;
}

void check_program_outputs(RuleContext& ctx, const std::string& modality, const nlohmann::json& program,
                           const std::string& adapter, const Component& c) {
  std::vector<const NamedMap<std::string>*> invocations;
  find_invocations(ctx.wf.steps, adapter, invocations);
  if (invocations.size() != 1) return;  // reported by the invoke-count rule
  const nlohmann::json outputs = program.value("outputs", nlohmann::json::array());
  if (!outputs.is_array()) return;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const nlohmann::json& o = outputs[i];
    const std::string path = fmt::format("preprocessing.{}.outputs[{}]", modality, i);
    const std::string name = o.value("name", "");
    if (o.value("optional", false))
      ctx.diags.report("V-PREPROC", path + ".optional", "program output '{}' cannot be optional in a workflow; every "
                       "adapter output is materialized", name);
    if (!o.contains("contract")) {
      ctx.diags.report("V-PREPROC", path + ".contract", "program output '{}' needs a tensor contract for workflow use", name);
      continue;
    }
    const nlohmann::json& contract = o["contract"];
    if (o.contains("dtype") && contract.is_object() && o["dtype"] != contract.value("dtype", nlohmann::json()))
      ctx.diags.report("V-PREPROC", path + ".dtype", "program output '{}' dtype {} disagrees with its contract's {}", name,
                       o["dtype"].dump(), contract.value("dtype", nlohmann::json()).dump());
    const std::string* port = nullptr;
    for (const auto& [p, value] : *invocations[0])
      if (value == name) port = &p;
    if (!port) {
      ctx.diags.report("V-PREPROC", path + ".name", "program output '{}' is not an output value of the invocation of "
                       "adapter '{}'", name, adapter);
      continue;
    }
    const TensorContract* declared = find_named(c.ports.outputs, *port);
    if (!declared)
      ctx.diags.report("V-PREPROC", path + ".name", "adapter '{}' declares no output port '{}'", adapter, *port);
    else if (!same_contract(contract, *declared))
      ctx.diags.report("V-PREPROC", path + ".contract", "program output '{}' has a contract different from adapter port "
                       "'{}' ({}); dtype, rank, shape and batch layout must be equal", name, *port, contract_text(*declared));
  }
}

}  // namespace

void check_preprocessing(RuleContext& ctx) {
  for (std::string modality : {"image", "audio"}) {
    std::string abi = "onnx-genai." + modality + "-preprocess";
    bool program = ctx.doc.preprocessing.is_object() && ctx.doc.preprocessing.contains(modality);
    std::vector<std::string> adapters;
    for (const auto& [name, c] : ctx.wf.components)
      if (c.implementation.kind == Implementation::Kind::kAdapter && c.implementation.abi == abi) adapters.push_back(name);
    if (!program && adapters.empty()) continue;
    if (adapters.size() != 1 || !program) {
      ctx.diags.report("V-PREPROC", program ? wf_path("components") : "preprocessing." + modality,
                       "preprocessing.{} needs exactly one {}@1 adapter component and vice versa; found {} adapter(s){}",
                       modality, abi, adapters.size(), program ? "" : " and no program");
      continue;
    }
    const Component& c = *ctx.component(adapters[0]);
    std::string path = wf_path("components." + adapters[0]);
    const TensorContract* encoded = find_named(c.ports.inputs, "encoded");
    if (c.implementation.version != "1" || !encoded || canonical_dtype(encoded->dtype) != DataType::kUint8 || encoded->rank != 1)
      ctx.diags.report("V-PREPROC", path, "a {}@1 adapter needs an `encoded` uint8 rank-1 input", abi);
    if (ctx.flow.invoke_count[adapters[0]] != 1)
      ctx.diags.report("V-PREPROC", path, "the preprocessing adapter must be invoked exactly once; it is invoked {} times",
                       ctx.flow.invoke_count[adapters[0]]);
    if (c.ports.outputs.empty())
      ctx.diags.report("V-PREPROC", path + ".ports.outputs", "the preprocessing adapter needs typed outputs");
    check_program_outputs(ctx, modality, ctx.doc.preprocessing[modality], adapters[0], c);
  }
}

}  // namespace ogai::metadata::detail
