#include "base/signal_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

#include "base/error.h"

namespace ogai {
namespace {

struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};

Slot g_slots[kMaxCleanupPaths];
std::mutex g_mutex;  // registration only; the handler reads the atomics
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The layout getdents64 fills (glibc declares no type for it).
struct Dirent64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')); }

// Removes every entry of the open directory `fd`; `depth` bounds the recursion (a temporary ogai
// writes is a few levels deep).
void empty_directory(int fd, int depth) {
  char buffer[2048];
  for (int pass = 0; pass < 4; ++pass) {  // deleting while listing may skip entries: list again
    ::lseek(fd, 0, SEEK_SET);
    bool any = false;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const Dirent64*>(buffer + at);
        at += entry->reclen;
        if (is_dot(entry->name)) continue;
        any = true;
        if (::unlinkat(fd, entry->name, 0) == 0 || errno != EISDIR || depth > 32) continue;
        const int child = ::openat(fd, entry->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0) continue;
        empty_directory(child, depth + 1);
        ::close(child);
        ::unlinkat(fd, entry->name, AT_REMOVEDIR);
      }
    }
    if (!any) return;
  }
}

void on_stop_signal(int signal_number) {
  const int saved_errno = errno;
  for (Slot& slot : g_slots)
    if (slot.used.load()) remove_tree_signal_safe(slot.path);
  errno = saved_errno;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(signal_number, &dfl, nullptr);
  ::raise(signal_number);  // delivered when the handler returns: the process ends as it would have
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal_number : kSignals) {
      struct sigaction old {};
      ::sigaction(signal_number, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // started ignoring it (nohup): keep ignoring it
      if (old.sa_handler != SIG_DFL) continue;  // the program handles it itself
      struct sigaction act {};
      act.sa_handler = on_stop_signal;
      ::sigemptyset(&act.sa_mask);
      for (int other : kSignals) ::sigaddset(&act.sa_mask, other);  // one cleanup at a time
      ::sigaction(signal_number, &act, nullptr);
    }
  });
}

}  // namespace

void remove_tree_signal_safe(const char* path) {
  if (::unlink(path) == 0 || errno != EISDIR) return;
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  empty_directory(fd, 0);
  ::close(fd);
  ::rmdir(path);
}

int register_cleanup(const std::filesystem::path& path) {
  const std::string text = path.string();
  if (text.size() >= PATH_MAX) fail(ErrorCode::kInvalidArgument, text, "the path is longer than {} bytes", PATH_MAX - 1);
  std::lock_guard lock(g_mutex);
  install_handlers();
  for (int i = 0; i < kMaxCleanupPaths; ++i) {
    if (g_slots[i].used.load()) continue;
    std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
    g_slots[i].used.store(true);
    return i;
  }
  fail(ErrorCode::kInternal, text, "more than {} temporaries registered for cleanup", kMaxCleanupPaths);
}

void unregister_cleanup(int slot) {
  if (slot < 0 || slot >= kMaxCleanupPaths) return;
  std::lock_guard lock(g_mutex);
  g_slots[slot].used.store(false);
}

}  // namespace ogai
