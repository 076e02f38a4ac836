#include "grammar/compile_budget.h"

#include <chrono>

#include "base/error.h"
#include "ogai/options.h"

namespace ogai {

struct CompileBudgetScope::State {
  CompileBudget budget;
  std::chrono::steady_clock::time_point deadline;
  unsigned calls = 0;
};

namespace {

thread_local CompileBudgetScope::State* current = nullptr;

}  // namespace

CompileBudgetScope::CompileBudgetScope(CompileBudget budget) : state_(new State{std::move(budget), {}, 0}),
                                                               previous_(current) {
  const auto span = std::chrono::duration<double>(state_->budget.seconds > 0 ? state_->budget.seconds : 1e9);
  state_->deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(span);
  current = state_;
}

CompileBudgetScope::~CompileBudgetScope() {
  current = previous_;
  delete state_;
}

namespace grammar {

void check_compile_budget(const std::string& where) {
  CompileBudgetScope::State* s = current;
  if (s == nullptr || ++s->calls % 256 != 0) return;
  if (s->budget.cancelled && s->budget.cancelled())
    fail(ErrorCode::kCancelled, where, "compilation cancelled (the client went away)");
  if (s->budget.seconds > 0 && std::chrono::steady_clock::now() > s->deadline)
    fail(ErrorCode::kInvalidArgument, where, "compiling it took longer than the limit of {} s{}; simplify it",
         s->budget.seconds, s->budget.limit_name.empty() ? "" : " (" + s->budget.limit_name + ")");
}

}  // namespace grammar
}  // namespace ogai
