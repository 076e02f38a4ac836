#include "serve/connection_drain.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace ogai::serve {
namespace {

// The port of a TCP socket address; -1 for anything else.
int port_of(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return -1;
}

// {local port, peer port} of a connected TCP socket, or {-1, -1}.
std::pair<int, int> tcp_ports(int fd) {
  int type = 0;
  socklen_t type_len = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) != 0 || type != SOCK_STREAM) return {-1, -1};
  sockaddr_storage local{}, peer{};
  socklen_t local_len = sizeof(local), peer_len = sizeof(peer);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0)
    return {-1, -1};
  return {port_of(local), port_of(peer)};
}

}  // namespace

void ConnectionDrain::begin(int remote_port) {
  std::lock_guard lock(mutex_);
  ++busy_[remote_port];
}

void ConnectionDrain::end(int remote_port) {
  std::lock_guard lock(mutex_);
  auto it = busy_.find(remote_port);
  if (it != busy_.end() && --it->second <= 0) busy_.erase(it);
}

bool ConnectionDrain::busy(int remote_port) {
  std::lock_guard lock(mutex_);
  return busy_.count(remote_port) > 0;
}

int ConnectionDrain::close_idle(int local_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  const int own = dirfd(dir);
  int count = 0;
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own) continue;
    auto [local, peer] = tcp_ports(static_cast<int>(fd));
    if (local == local_port && !busy(peer) && shutdown(static_cast<int>(fd), SHUT_RD) == 0) ++count;
  }
  closedir(dir);
  return count;
}

}  // namespace ogai::serve
