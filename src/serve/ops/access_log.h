// The access log of `ogai serve`: one line per answered request on stderr, in the log format
// (base/log.h). Text:
//   ogai [info] access: 127.0.0.1:51234 "POST /v1/chat/completions HTTP/1.1" 200 812B 35.2ms id=1f0c...
// JSON (--log-format json), one object a line:
//   {"time":"...","level":"info","message":"access","request_id":"1f0c...","remote":"127.0.0.1:51234",
//    "method":"POST","path":"/v1/chat/completions","http_version":"1.1","status":200,"bytes":812,
//    "duration_ms":35.2}
// Written whatever the log level (turn it off with --no-access-log). Thread-safe.
#pragma once

#include <cstddef>
#include <string>

namespace ogai::serve {

struct AccessRecord {
  std::string request_id;
  std::string remote;   // "address:port"
  std::string method;
  std::string target;   // the path and query as sent
  int http_version = 11;
  int status = 0;
  std::size_t bytes = 0;     // body bytes sent
  double duration_ms = 0;    // from the request's arrival to its answer's end
};

std::string access_line(const AccessRecord& record, bool json);
void write_access_log(const AccessRecord& record);

}  // namespace ogai::serve
