// Internal to the interpreter: the state of one request while it runs, and the step functions the
// interpreter's files share. Not thread-safe (one request, one thread).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "workflow/interpreter.h"
#include "workflow/tensor_ops.h"
#include "workflow/value_check.h"

namespace ogai::workflow {

// The request's values by SSA name (one flat map; digest §3).
using Store = std::unordered_map<std::string, Value>;

struct Context {
  const Program& program;
  RunRequest request;
  EmitCallback on_emit;
  Store store;                           // SSA name -> value (one flat map for the request)
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
void run_invoke(Context& ctx, const metadata::InvokeStep& step, const std::string& path);
void run_emit(Context& ctx, const metadata::EmitStep& step, const std::string& path);

// A `loop` in progress (digest §5.3), driven by the resumable run (run.cc): after its setup ran,
// start_loop() starts the carries and reads the limit; begin_trip() is the pre-test (false: the
// loop is over) and stores the iteration value; end_trip() updates the carries after the body.
struct LoopProgress {
  const metadata::LoopStep* loop = nullptr;
  const std::string* path = nullptr;
  std::int64_t limit = 0, index = 0;
  std::vector<bool> flags;  // this trip's activity
};
void start_loop(Context& ctx, LoopProgress& p);
bool begin_trip(Context& ctx, LoopProgress& p);
void end_trip(Context& ctx, LoopProgress& p);

// A `branch` in progress (digest §5.4): enter_branch() picks the case and saves the store (the
// case runs on a copy); leave_branch() keeps only the phis once the case's steps ran.
struct BranchProgress {
  const metadata::BranchStep* branch = nullptr;
  const std::string* path = nullptr;
  std::string key;
  bool use_default = false;
  const std::vector<metadata::Step>* body = nullptr;
  Store saved;
};
BranchProgress enter_branch(Context& ctx, const metadata::BranchStep& step, const std::string& path);
void leave_branch(Context& ctx, BranchProgress& p);
// The indexed_scatter capacity check of digest §6.3 for one invoke (no-op when the component
// receives no destinations).
void check_scatter_writes(const Context& ctx, const metadata::InvokeStep& step, const std::string& path);

}  // namespace ogai::workflow
