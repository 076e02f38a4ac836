// Internal: the SSA walk behind check_flow() (rules_flow.cc, rules_flow_control.cc).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "metadata/rules.h"

namespace ogai::metadata::detail {

class FlowWalker {
 public:
  explicit FlowWalker(RuleContext& ctx);
  void run();

 private:
  struct Frame {
    Frame* parent = nullptr;
    std::map<std::string, std::optional<TensorContract>> values;
    std::set<std::string> present;  // guarded optional inputs known present in this frame
    bool in_branch_case = false;
  };

  const std::optional<TensorContract>* lookup(const Frame& frame, const std::string& name) const;
  bool presence_known(const Frame& frame, const std::string& name) const;
  // Reports an undefined (or presence-guarded) value; returns its contract when known.
  const TensorContract* use(const Frame& frame, const std::string& name, const std::string& path,
                            const char* rule, std::string_view what);
  void define(Frame& frame, const std::string& name, const std::optional<TensorContract>& contract,
              const std::string& path);

  void walk(const std::vector<Step>& steps, Frame& frame, std::optional<std::size_t> loop);
  void step(const Step& s, Frame& frame, std::optional<std::size_t> loop);
  void note_component(const std::string& component, std::optional<std::size_t> loop);
  void on_invoke(const Step& s, const InvokeStep& inv, Frame& frame, std::optional<std::size_t> loop);
  void on_loop(const Step& s, const LoopStep& l, Frame& frame, std::optional<std::size_t> loop);
  void on_branch(const Step& s, const BranchStep& b, Frame& frame, std::optional<std::size_t> loop);
  void on_emit(const Step& s, const EmitStep& e, const Frame& frame);

  void check_carry_entry(const Step& s, const LoopStep& l, Frame& loop_frame);
  void check_carry_next(const Step& s, const LoopStep& l, const Frame& body);
  void check_loop_controls(const Step& s, const LoopStep& l, const Frame& outer, const Frame& loop_frame);
  void check_emit_guards(const Step& s, const EmitStep& e, const Frame& frame, const TensorContract* value,
                         const WorkflowOutput* out);

  RuleContext& ctx_;
  std::map<std::string, std::string> guarded_;  // optional input -> its present_as flag
  std::map<std::size_t, std::optional<std::size_t>> parents_;  // loop -> enclosing loop
  std::set<std::string> branch_defined_;       // values defined inside a branch case
  std::map<std::string, std::pair<std::string, BatchLayout::Kind>> emit_modes_;  // output -> (mode, layout)
};

}  // namespace ogai::metadata::detail
