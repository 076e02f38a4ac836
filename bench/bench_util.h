// Small helpers shared by the benchmarks: wall-clock timing and peak RSS.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <functional>

namespace ogai::bench {

// Seconds taken by one call of `body`.
inline double time_once(const std::function<void()>& body) {
  auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds this thread spent in one call of `body`: unlike the wall clock, not counting the
// time the thread waited for a core (a loaded machine preempts for whole milliseconds).
inline double thread_cpu_once(const std::function<void()>& body) {
  timespec a{}, b{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  body();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  return static_cast<double>(b.tv_sec - a.tv_sec) + static_cast<double>(b.tv_nsec - a.tv_nsec) * 1e-9;
}

// CPU seconds all threads of this process have used so far (differences of two calls time a
// piece of work done on other threads too, such as an ogai::Engine's, without the waits for a core).
inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The fastest of `runs` calls, in seconds.
inline double time_best(int runs, const std::function<void()>& body) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) best = std::min(best, time_once(body));
  return best;
}

// The lowest mean seconds per call over `rounds` rounds of `calls` back-to-back calls each.
inline double time_best_mean(int rounds, int calls, const std::function<void()>& body) {
  return time_best(rounds,
                   [&] {
                     for (int i = 0; i < calls; ++i) body();
                   }) /
         calls;
}

// Peak resident set size of this process so far, in MiB.
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace ogai::bench
