// Background priority for the threads that do a request's bulk work (the bulk lane that parses
// and tokenizes bodies of 256 KiB or more): the calling thread's scheduling priority is lowered
// (Linux: its nice value raised to kBackgroundNice, about a third of a nice-0 thread's CPU share
// under contention; threads have their own nice value), so on a
// machine with few cores the kernel runs the engine's and the I/O threads, which drive streams,
// before it. The work still runs whenever a core is free. Elsewhere it does nothing. Call on the
// thread to lower; idempotent per thread.
#pragma once

namespace ogai::serve {

inline constexpr int kBackgroundNice = 5;

void lower_this_thread_priority();

}  // namespace ogai::serve
