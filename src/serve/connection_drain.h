// ConnectionDrain: ends idle keep-alive connections at shutdown. The HTTP library lets a stopped
// server finish only when each idle keep-alive connection has timed out (seconds). The drain knows
// which connections have a request in progress (the server calls begin() when a request's headers
// are read and end() once its response is written) and, once the listener is closed, shuts down
// the receiving side of the others, which ends their wait at once. Connections with a request in
// progress are left alone so that their responses (a 503, a stream's last event) are written.
// Linux-only (walks /proc/self/fd). Thread-safe.
#pragma once

#include <map>
#include <mutex>

namespace ogai::serve {

class ConnectionDrain {
 public:
  void begin(int remote_port);  // a request is in progress on the connection from this peer port
  void end(int remote_port);    // its response was written
  // Shuts down reading on every TCP socket of this process whose local port is `local_port` (the
  // server's accepted connections, once its listener is closed) and that has no request in
  // progress. Returns how many.
  int close_idle(int local_port);

 private:
  bool busy(int remote_port);

  std::mutex mutex_;
  std::map<int, int> busy_;  // peer port -> requests in progress
};

}  // namespace ogai::serve
