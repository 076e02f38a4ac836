// Internal to the interpreter: the state of one request while it runs, and the step functions the
// interpreter's files share. Not thread-safe (one request, one thread).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/interpreter.h"
#include "workflow/tensor_ops.h"
#include "workflow/value_check.h"

namespace ogai::workflow {

struct Context {
  const Program& program;
  RunRequest request;
  const EmitCallback& on_emit;
  std::map<std::string, Value> store;    // SSA name -> value (one flat map for the request)
  std::map<std::string, Value> outputs;  // published keys (see RunResult::outputs)
  std::map<std::string, std::int64_t> event_counts;  // key -> events published so far
  std::set<std::string> absent;          // optional inputs the request left absent
  Symbols symbols;                       // the package-level symbol table
  RunStats stats;

  const metadata::Workflow& wf() const { return program.workflow(); }
  // The value named `name`, or an error naming the step and what reads it.
  // `reader` (and `detail`, quoted) say what reads it; formatted only on failure.
  const Value& get(const std::string& name, const std::string& path, std::string_view reader,
                   std::string_view detail = {}) const;
};

void bind_inputs(Context& ctx);
void run_steps(Context& ctx, const std::vector<metadata::Step>& steps);
void run_step(Context& ctx, const metadata::Step& step);
void run_invoke(Context& ctx, const metadata::InvokeStep& step, const std::string& path);
void run_loop(Context& ctx, const metadata::LoopStep& step, const std::string& path);
void run_emit(Context& ctx, const metadata::EmitStep& step, const std::string& path);
// The indexed_scatter capacity check of digest §6.3 for one invoke (no-op when the component
// receives no destinations).
void check_scatter_writes(const Context& ctx, const metadata::InvokeStep& step, const std::string& path);

}  // namespace ogai::workflow
