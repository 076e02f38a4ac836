// The compile budget of this thread (ogai::CompileBudgetScope, include/ogai/options.h), polled by
// the grammar builder and the checks of finish(), the loops whose cost grows with the grammar.
#pragma once

#include <string>

namespace ogai::grammar {

// Throws ogai::Error naming `where` once this thread's budget is spent or cancelled; cheap (a
// thread-local test, the clock read every 256 calls); nothing without a scope.
void check_compile_budget(const std::string& where);

}  // namespace ogai::grammar
