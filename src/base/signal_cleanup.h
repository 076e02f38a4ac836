// Temporaries removed when the process is stopped by SIGINT, SIGTERM or SIGHUP.
//
// A command that writes its output beside its destination first (base/staged_output.h) registers
// the temporary here; if a stop signal arrives before it is renamed into place or removed, the
// handler deletes it (recursively, with async-signal-safe system calls only) and the process
// then dies of the same signal, as it would have without the handler. SIGKILL cannot be caught:
// the next run recognises and removes what such a run left (staged_output.h).
//
// Thread-safe: registration takes a lock; the handler reads fixed slots without one. At most
// kMaxCleanupPaths paths are registered at a time (a further one throws kInternal).
#pragma once

#include <filesystem>

namespace ogai {

inline constexpr int kMaxCleanupPaths = 8;

// Registers `path` (an absolute path) for removal on a stop signal; installs the handlers on first
// use. Returns a slot for unregister_cleanup.
int register_cleanup(const std::filesystem::path& path);
// The path in `slot` is no longer removed on a signal.
void unregister_cleanup(int slot);

// Removes `path` and, when it is a directory, everything below it (symbolic links removed, not
// followed), using only async-signal-safe calls. Best effort: errors are ignored.
void remove_tree_signal_safe(const char* path);

}  // namespace ogai
