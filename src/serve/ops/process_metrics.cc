#include "serve/ops/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace ogai::serve {
namespace {

void sample(std::string& out, const char* name, const char* type, const char* help, double value) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name, value);
}

// The fields of /proc/self/stat after the command name (which may hold spaces): [0] is field 3.
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

// Seconds since the epoch at which the system booted (/proc/stat's btime), or -1.
double boot_time() {
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double t = -1;
      in >> t;
      return t;
    }
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

}  // namespace

void write_process_metrics(std::string& out) {
  const std::vector<std::string> f = stat_fields();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  // man 5 proc: utime (14), stime (15), starttime (22), vsize (23), rss (24); f[0] is field 3.
  if (f.size() > 21 && ticks > 0) {
    sample(out, "process_cpu_seconds_total", "counter", "User and system CPU time spent, seconds.",
           (std::stod(f[11]) + std::stod(f[12])) / ticks);
    sample(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size, bytes.", std::stod(f[20]));
    sample(out, "process_resident_memory_bytes", "gauge", "Resident memory size, bytes.", std::stod(f[21]) * page);
    if (const double boot = boot_time(); boot >= 0)
      sample(out, "process_start_time_seconds", "gauge", "Start time of the process since the epoch, seconds.",
             boot + std::stod(f[19]) / ticks);
  }
  std::error_code ec;
  std::size_t fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++fds;
  if (!ec) sample(out, "process_open_fds", "gauge", "Open file descriptors.", static_cast<double>(fds));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    sample(out, "process_max_fds", "gauge", "Most file descriptors the process may open.",
           static_cast<double>(limit.rlim_cur));
}

}  // namespace ogai::serve
