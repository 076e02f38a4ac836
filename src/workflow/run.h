// A workflow request as a resumable object (digest §§4-6): the constructor binds the request,
// and each step() runs the workflow's steps up to the end of the next loop trip (of any loop;
// a trip's emits have been published, through the callback, when it returns), or to the end of
// the workflow. A caller that steps several runs in turn makes them progress together, one
// iteration each; run() (interpreter.h) steps one to its end.
//
// The tree is walked with an explicit stack of frames (a sequence's next step, a loop's phase,
// a branch's saved store), so a run can stop between any two trips and resume later.
// Errors are ogai::Error naming the step's document path; after one, the run is over (step()
// must not be called again). Not thread-safe; the Program must outlive the run.
#pragma once

#include <memory>
#include <variant>
#include <vector>

#include "workflow/interpreter.h"

namespace ogai::workflow {

struct Context;

class Run {
 public:
  // Binds `request` (throws ogai::Error for what binding refuses, before any graph runs).
  Run(const Program& program, RunRequest request, EmitCallback on_emit = {});
  ~Run();
  Run(Run&&) noexcept;
  Run& operator=(Run&&) noexcept;

  // Runs to the end of the next loop trip or of the workflow; returns false once the workflow
  // has ended (then finished() is true and result() may be called).
  bool step();
  bool finished() const { return finished_; }
  const RunStats& stats() const;
  // The outputs and captured values; once, after the workflow ended.
  RunResult result();

  struct Frame;

 private:
  std::unique_ptr<Context> ctx_;
  std::vector<Frame> frames_;
  bool finished_ = false;
  double seconds_ = 0;  // inside step() and the constructor
};

}  // namespace ogai::workflow
