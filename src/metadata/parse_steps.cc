// pipeline.workflow.steps: invoke, sequence, loop, branch, emit (typed SSA steps).
#include <fmt/format.h>

#include "metadata/parse_internal.h"

namespace ogai::metadata::detail {
namespace {

Step read_step(Reader& r, const Node& node, const std::string& path);

NamedMap<std::string> read_bindings(Reader& r, const Node* node, const std::string& path) {
  NamedMap<std::string> out;
  r.entries(node, path, [&](const std::string& port, const Node& v, const std::string& p) {
    if (auto value = r.string(&v, p)) out.emplace_back(port, *value);
  });
  return out;
}

InvokeStep read_invoke(Reader& r, Fields& f) {
  InvokeStep s;
  s.component = f.string_or("component", "", true);
  s.inputs = read_bindings(r, f.get("inputs"), f.at("inputs"));
  s.outputs = read_bindings(r, f.get("outputs"), f.at("outputs"));
  return s;
}

LoopStep read_loop(Reader& r, Fields& f) {
  LoopStep s;
  s.setup = read_steps(r, f.get("setup"), f.at("setup"));
  s.steps = read_steps(r, f.need("steps"), f.at("steps"));
  s.continue_when = f.string_or("continue_when", "", true);
  s.max_iterations = f.string_or("max_iterations", "", true);
  s.generation_eos = f.choice("termination", {"predicate", "generation_eos"}).value_or(0) == 1;
  if (const Node* it = f.get("iteration")) {
    Fields i(r, it, f.at("iteration"));
    s.iteration = LoopIteration{i.string_or("value", "", true), read_contract(r, i.need("contract"), i.at("contract"))};
  }
  r.items(f.get("carried"), f.at("carried"), [&](std::size_t, const Node& item, const std::string& p) {
    Fields c(r, &item, p);
    s.carried.push_back(Carry{c.string_or("cell", "", true), c.string("initial"), c.string_or("next", "", true)});
  });
  return s;
}

BranchStep read_branch(Reader& r, Fields& f) {
  BranchStep s;
  s.predicate = f.string_or("predicate", "", true);
  r.entries(f.need("cases"), f.at("cases"), [&](const std::string& key, const Node& v, const std::string& p) {
    BranchCase c{key, {}};
    c.body.push_back(read_step(r, v, p));
    s.cases.push_back(std::move(c));
  });
  if (const Node* d = f.get("default")) s.default_step.push_back(read_step(r, *d, f.at("default")));
  r.entries(f.get("outputs"), f.at("outputs"), [&](const std::string& name, const Node& v, const std::string& p) {
    Fields o(r, &v, p);
    BranchOutput out{read_bindings(r, o.need("cases"), o.at("cases")), o.string("default")};
    s.outputs.emplace_back(name, std::move(out));
  });
  return s;
}

EmitStep read_emit(Fields& f) {
  EmitStep s;
  s.value = f.string_or("value", "", true);
  s.output = f.string_or("output", "", true);
  s.mode = f.one_of("mode", {"replace", "append", "event"}, true).value_or("replace");
  s.when = f.string("when");
  s.valid_length = f.string("valid_length");
  s.axis = f.integer("axis", 0);
  return s;
}

Step read_step(Reader& r, const Node& node, const std::string& path) {
  Step step{path, SequenceStep{}};
  Fields f(r, &node, path, {{"row_ids", "ragged rows are associated by the runtime's output API"}});
  if (!f.present()) return step;
  const Node* kind_node = f.need("kind");
  std::string kind = kind_node && kind_node->kind == Node::Kind::kString ? kind_node->text : "";
  if (kind == "invoke") step.body = read_invoke(r, f);
  else if (kind == "sequence") step.body = SequenceStep{read_steps(r, f.need("steps"), f.at("steps"))};
  else if (kind == "loop") step.body = read_loop(r, f);
  else if (kind == "branch") step.body = read_branch(r, f);
  else if (kind == "emit") step.body = read_emit(f);
  else if (kind == "transfer" || kind == "execution_island")
    r.error(f.at("kind"), fmt::format("authored '{}' steps are not part of v1: the planner inserts them "
                                      "internally; expected invoke, sequence, loop, branch or emit", kind));
  else if (kind_node)
    r.error(f.at("kind"), fmt::format("unknown step kind {}; expected invoke, sequence, loop, branch or emit",
                                      node_preview(*kind_node)));
  if (kind != "invoke" && kind != "sequence" && kind != "loop" && kind != "branch" && kind != "emit") {
    for (const auto& [key, value] : node.entries) f.has(key);  // no second report for the fields
  }
  return step;
}

}  // namespace

std::vector<Step> read_steps(Reader& r, const Node* node, const std::string& path) {
  std::vector<Step> steps;
  r.items(node, path, [&](std::size_t, const Node& item, const std::string& p) { steps.push_back(read_step(r, item, p)); });
  return steps;
}

}  // namespace ogai::metadata::detail
