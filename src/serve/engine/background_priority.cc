#include "serve/engine/background_priority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ogai::serve {

void lower_this_thread_priority() {
#if defined(__linux__)
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (now < kBackgroundNice) ::setpriority(PRIO_PROCESS, tid, kBackgroundNice);  // best effort
#endif
}

}  // namespace ogai::serve
