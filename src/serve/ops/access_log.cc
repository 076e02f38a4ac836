#include "serve/ops/access_log.h"

#include <fmt/format.h>

#include "base/log.h"

namespace ogai::serve {
namespace {

std::string version_text(int version) { return fmt::format("{}.{}", version / 10, version % 10); }

}  // namespace

std::string access_line(const AccessRecord& r, bool json) {
  const std::string tag = log_tag();  // the replica id, as every log line carries it
  if (json)
    return fmt::format(R"({{"time":"{}","level":"info"{},"message":"access","request_id":{},"remote":{},)"
                       R"("method":{},"path":{},"http_version":"{}","status":{},"bytes":{},"duration_ms":{:.1f}}})",
                       log_timestamp(), tag.empty() ? std::string() : R"(,"replica":)" + json_quoted(tag),
                       json_quoted(r.request_id), json_quoted(r.remote), json_quoted(r.method), json_quoted(r.target),
                       version_text(r.http_version), r.status, r.bytes, r.duration_ms);
  return fmt::format("ogai [info] {}access: {} \"{} {} HTTP/{}\" {} {}B {:.1f}ms id={}",
                     tag.empty() ? std::string() : "[" + tag + "] ", r.remote, r.method, r.target,
                     version_text(r.http_version), r.status, r.bytes, r.duration_ms, r.request_id);
}

void write_access_log(const AccessRecord& record) {
  log_line(access_line(record, log_format() == LogFormat::kJson));
}

}  // namespace ogai::serve
