// Internal to the interpreter: the state of one request while it runs, and the step functions the
// interpreter's files share. Not thread-safe (one request, one thread).
//
// The store is a flat vector of values indexed by the program's slots (plan.h): the hot path reads
// and writes values by slot; names are resolved only where a step is not planned (bindings of
// the request, branch phis, captures) and in error messages.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/interpreter.h"
#include "workflow/tensor_ops.h"
#include "workflow/value_check.h"

namespace ogai::workflow {

// The request's values by slot (digest §3: one flat SSA store); null: not defined yet.
using Store = std::vector<Value>;

// One published output key (see RunResult::outputs). An `append` output whose chunks are
// contiguous along the append axis (every axis before it has extent 1) grows in `bytes` (amortized
// O(chunk) per emit), materialized at the end of the run; any other publication is a Value.
struct Published {
  Value value;
  std::vector<std::byte> bytes;           // the buffered append, when buffered
  DataType dtype = DataType::kUndefined;  // of the buffered append
  Shape shape;                            // of the buffered append
  bool buffered = false;
};

struct Context {
  Context(const Program& p, RunRequest r, EmitCallback emit)
      : program(p), request(std::move(r)), on_emit(std::move(emit)), store(p.slots.size()), absent(p.slots.size()) {}

  const Program& program;
  RunRequest request;
  EmitCallback on_emit;
  Store store;
  std::vector<char> absent;  // by slot: an optional input the request left absent
  bool any_absent = false;
  std::map<std::string, Published> outputs;          // published keys
  std::map<std::string, std::int64_t> event_counts;  // key -> events published so far
  Symbols symbols;                                   // the package-level symbol table
  RunStats stats;
  // Buffers an invoke reuses (invokes never nest), so the loop body allocates none of them.
  std::vector<const Tensor*> feeds;
  std::vector<std::string> fed_ports;
  std::vector<Tensor> results;
  std::vector<std::int64_t> emit_when, emit_lengths;  // a row-wise emit's flags and lengths

  const metadata::Workflow& wf() const { return program.workflow(); }
  // The value in `slot`, or an error naming the step (`path`) and what reads it: `reader` and
  // `detail` (quoted), formatted only on failure.
  const Value& get(Slot slot, const std::string& path, std::string_view reader, std::string_view detail = {}) const {
    const Value& v = store[slot];
    if (!v) undefined(program.slots.name(slot), path, reader, detail);
    return v;
  }
  // The same by name (a name the program has no slot for is never defined).
  const Value& get(const std::string& name, const std::string& path, std::string_view reader,
                   std::string_view detail = {}) const;
  // The slot of a name that must have one (the program collected every name it mentions).
  Slot slot(const std::string& name) const;
  bool is_absent(const std::string& name) const;

 private:
  [[noreturn]] void undefined(const std::string& name, const std::string& path, std::string_view reader,
                              std::string_view detail) const;
};

void bind_inputs(Context& ctx);
void run_invoke(Context& ctx, const metadata::InvokeStep& step, const std::string& path);
void run_emit(Context& ctx, const metadata::EmitStep& step, const std::string& path);
// The published outputs as tensors (buffered appends materialized); once, at the end of a run.
std::map<std::string, Tensor> published_outputs(const Context& ctx);

// A `loop` in progress (digest §5.3), driven by the resumable run (run.cc): after its setup ran,
// start_loop() starts the carries and reads the limit; begin_trip() is the pre-test (false: the
// loop is over) and stores the iteration value; end_trip() updates the carries after the body.
struct LoopProgress {
  const metadata::LoopStep* loop = nullptr;
  const std::string* path = nullptr;
  const LoopPlan* plan = nullptr;
  std::int64_t limit = 0, index = 0;
  std::vector<bool> flags;                      // this trip's activity
  std::vector<std::pair<Slot, Value>> updates;  // end_trip's buffer, reused across trips
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
