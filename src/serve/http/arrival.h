// Arrival: what a connection has already sent that the server has not read yet, looked at without
// consuming it (recv with MSG_PEEK), so that admission at a full connection cap can tell a whole
// request (a health probe, a client that sends its request at once) from a connection still
// sending its header, and an eviction does not close a connection whose request has arrived.
// Cost: one non-blocking recv of at most the header limit, done only when a cap is reached.
// Any thread, on an open socket; never blocks.
#pragma once

#include <string_view>

#include "serve/http/limits.h"

namespace ogai::serve::http {

struct Arrival {
  bool whole_header = false;  // the request line and every header field ("\r\n\r\n" within the header limit)
  bool probe = false;         // and its target's path is one of Limits::probe_paths
};

// What the socket `fd` holds, after `read` (bytes already taken from it and not yet parsed).
Arrival peek_arrival(int fd, const Limits& limits, std::string_view read = {});

}  // namespace ogai::serve::http
