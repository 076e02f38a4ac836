// Process metrics in the names Prometheus' client libraries use (process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_start_time_seconds,
// process_open_fds, process_max_fds), read from /proc/self at scrape time. On a system without
// /proc the samples it cannot read are left out. Thread-safe (reads only).
#pragma once

#include <string>

namespace ogai::serve {

// Appends the HELP / TYPE lines and samples of the process metrics to `out`.
void write_process_metrics(std::string& out);

}  // namespace ogai::serve
