#include "workflow/run.h"

#include <chrono>

#include "base/error.h"
#include "workflow/context.h"

namespace ogai::workflow {
namespace {

using Clock = std::chrono::steady_clock;

struct StepsFrame {
  const std::vector<metadata::Step>* steps;
  std::size_t next = 0;
};

// A loop's phase: kSetup (push the setup), kStart (the setup ran: start the carries), kTrip
// (pre-test, push the body), kBody (the body ran: update the carries, end the trip).
struct LoopFrame {
  enum class Phase { kSetup, kStart, kTrip, kBody } phase = Phase::kSetup;
  LoopProgress progress;
};

// On top of the stack only once its case's steps have run.
struct BranchFrame {
  BranchProgress progress;
};

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

struct Run::Frame {
  std::variant<StepsFrame, LoopFrame, BranchFrame> body;
};

Run::Run(const Program& program, RunRequest request, EmitCallback on_emit)
    : ctx_(std::make_unique<Context>(program, std::move(request), std::move(on_emit))) {
  const auto t0 = Clock::now();
  bind_inputs(*ctx_);
  frames_.push_back({StepsFrame{&ctx_->wf().steps}});
  seconds_ += since(t0);
}

Run::~Run() = default;
Run::Run(Run&&) noexcept = default;
Run& Run::operator=(Run&&) noexcept = default;

const RunStats& Run::stats() const { return ctx_->stats; }

bool Run::step() {
  if (finished_) return false;
  const auto t0 = Clock::now();
  Context& ctx = *ctx_;
  bool trip_ended = false;
  while (!frames_.empty() && !trip_ended) {
    auto& top = frames_.back().body;
    if (auto* s = std::get_if<StepsFrame>(&top)) {
      if (s->next == s->steps->size()) {
        frames_.pop_back();
        continue;
      }
      const metadata::Step& step = (*s->steps)[s->next++];
      if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body))
        run_invoke(ctx, *inv, step.path);
      else if (const auto* e = std::get_if<metadata::EmitStep>(&step.body))
        run_emit(ctx, *e, step.path);
      else if (const auto* q = std::get_if<metadata::SequenceStep>(&step.body))
        frames_.push_back({StepsFrame{&q->steps}});
      else if (const auto* l = std::get_if<metadata::LoopStep>(&step.body))
        frames_.push_back({LoopFrame{LoopFrame::Phase::kSetup, LoopProgress{l, &step.path, nullptr, 0, 0, {}, {}}}});
      else if (const auto* b = std::get_if<metadata::BranchStep>(&step.body)) {
        BranchFrame frame{enter_branch(ctx, *b, step.path)};
        const auto* body = frame.progress.body;
        frames_.push_back({std::move(frame)});
        frames_.push_back({StepsFrame{body}});
      }
    } else if (auto* l = std::get_if<LoopFrame>(&top)) {
      using Phase = LoopFrame::Phase;
      switch (l->phase) {
        case Phase::kSetup:
          l->phase = Phase::kStart;
          frames_.push_back({StepsFrame{&l->progress.loop->setup}});
          break;
        case Phase::kStart:
          start_loop(ctx, l->progress);
          l->phase = Phase::kTrip;
          break;
        case Phase::kTrip:
          if (!begin_trip(ctx, l->progress)) {
            frames_.pop_back();
            break;
          }
          l->phase = Phase::kBody;
          frames_.push_back({StepsFrame{&l->progress.loop->steps}});
          break;
        case Phase::kBody:
          end_trip(ctx, l->progress);
          l->phase = Phase::kTrip;
          trip_ended = true;
          break;
      }
    } else {
      leave_branch(ctx, std::get<BranchFrame>(top).progress);
      frames_.pop_back();
    }
  }
  finished_ = frames_.empty();
  seconds_ += since(t0);
  return !finished_;
}

RunResult Run::result() {
  if (!finished_) fail(ErrorCode::kInternal, "workflow run", "result() before the workflow ended");
  RunResult result;
  result.outputs = published_outputs(*ctx_);
  for (const auto& name : ctx_->request.capture)
    result.values.emplace(name, Tensor::copy_of(*ctx_->get(name, "request.capture", "the capture list")));
  result.stats = ctx_->stats;
  result.stats.total_seconds = seconds_;
  return result;
}

}  // namespace ogai::workflow
