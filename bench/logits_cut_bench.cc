// Logits only where they are used: prefill time and peak memory of a prompt's prefill with the
// decoder's logits cut to the last position (the default, onnx/logits_cut.h) vs every position's
// logits (OGAI_LOGITS_CUT=0, the graph as exported), same package, same run.
//
//   logits_cut_bench [--package DIR]... [--lengths 512,4096] [--rounds N] [--threads N] [--work DIR]
//
// Without --package, two packages are generated into --work (default bench_data/logits_cut) by
// tools/genai/builder_llama.py (Debian's /usr/bin/python3): "llama-100m-v32k", the quantize
// benchmark's Llama geometry (hidden 768, 16 layers) with a 32,000-token vocabulary (149M
// parameters), and "llama-v262k", the builder's small geometry (hidden 64, 3 layers) with
// Gemma's 262,144-token vocabulary; both with a 4,352-position context.
// Each measurement is its own process: load, reset the kernel's peak-RSS mark (clear_refs 5), then
// one greedy generation of 1 token from a prompt of L ids, reporting the time to the first token
// (the prefill and its sampling), the peak RSS from the end of the load to the first token (the
// prefill's), the whole process's peak (the load's included), and the first token and its logprob
// (which must be the same with and without the cut: exit 1 otherwise). Rounds alternate
// which side goes first; the table shows medians and the median of the per-round ratios.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ogai/ogai.h"

namespace {

namespace fs = std::filesystem;

struct Args {
  std::vector<fs::path> packages;
  std::vector<int> lengths = {512, 4096};
  int rounds = 3;
  int threads = 2;
  fs::path work = "bench_data/logits_cut";
};

struct Sample {
  double ttft_ms = 0, load_peak_mib = 0, peak_mib = 0;  // peak_mib: from the end of the load to the first token
  int token = -1;
  float logprob = 0;
};

double peak_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The kernel's peak RSS of this process (VmHWM) since the last reset_peak(), in MiB.
double hwm_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so that it measures what follows.
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// In the child: load, prefill `length` ids, write one line to `fd`.
[[noreturn]] void child(const fs::path& package, int length, bool cut, int threads, int fd) {
  if (!cut) setenv("OGAI_LOGITS_CUT", "0", 1);
  setenv("OGAI_LOG", "error", 0);  // the import notes of a genai_config folder, once per process
  ogai::LoadOptions load;
  load.intra_op_threads = threads;
  auto model = ogai::Model::load(package, load);
  const double load_peak = peak_mib();
  reset_peak();
  const int vocab = static_cast<int>(std::min<std::int64_t>(model->info().vocab_size, 512));
  std::vector<ogai::TokenId> ids(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) ids[static_cast<std::size_t>(i)] = 3 + (i * 7919) % (vocab - 3);
  ogai::GenerationOptions o;
  o.max_new_tokens = 1;
  o.logprobs = 0;
  o.sampling.temperature = 0;
  const ogai::GenerationResult r = model->generate(std::span<const ogai::TokenId>(ids), o);
  const std::string line = std::to_string(r.timings.ttft_ms) + " " + std::to_string(load_peak) + " " +
                           std::to_string(hwm_mib()) + " " + std::to_string(r.ids.at(0)) + " " +
                           fmt::format("{:a}", r.logprobs.at(0).logprob) + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
  _exit(0);
}

Sample measure(const fs::path& package, int length, bool cut, int threads) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fd[0]);
    try {
      child(package, length, cut, threads, pipe_fd[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      _exit(2);
    }
  }
  close(pipe_fd[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_fd[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("measurement process failed for " + package.string());
  Sample s;
  std::istringstream in(text);
  std::string logprob;
  in >> s.ttft_ms >> s.load_peak_mib >> s.peak_mib >> s.token >> logprob;
  s.logprob = std::strtof(logprob.c_str(), nullptr);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--package") a.packages.emplace_back(value());
    else if (flag == "--lengths") a.lengths = parse_list(value());
    else if (flag == "--rounds") a.rounds = std::stoi(value());
    else if (flag == "--threads") a.threads = std::stoi(value());
    else if (flag == "--work") a.work = value();
    else throw std::runtime_error("unknown flag " + flag);
  }
  return a;
}

fs::path generated(const fs::path& work, const std::string& name, const std::string& flags) {
  const fs::path dir = work / name;
  if (fs::exists(dir / "model.onnx")) return dir;
  fs::create_directories(work);
  const std::string command = "/usr/bin/python3 " OGAI_SOURCE_DIR "/tools/genai/builder_llama.py " + dir.string() +
                              " " OGAI_SHARED_DIR "/models/stories260k/tokenizer.json " + flags;
  std::printf("generating %s\n", dir.c_str());
  std::fflush(stdout);
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  return dir;
}

int run(const Args& args) {
  std::vector<fs::path> packages = args.packages;
  if (packages.empty()) {
    packages.push_back(generated(args.work, "llama-100m-v32k", "--bench --vocab 32000 --context 4352"));
    packages.push_back(generated(args.work, "llama-v262k", "--vocab 262144 --context 4352"));
  }
  std::ifstream load_avg("/proc/loadavg");
  std::string la1, la5, la15;
  load_avg >> la1 >> la5 >> la15;
  std::printf("%d rounds (order alternating), %d intra-op threads, load average %s %s %s\n", args.rounds,
              args.threads, la1.c_str(), la5.c_str(), la15.c_str());
  std::printf("| package | prompt | TTFT cut ms | TTFT all ms | time ratio | prefill peak RSS cut MiB | all MiB | "
              "ratio | process peak cut / all MiB | same token |\n|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_same = true;
  for (const auto& package : packages) {
    for (int length : args.lengths) {
      std::vector<double> ttft[2], peak[2], growth[2], ratios, peak_ratios;
      bool same = true;
      for (int round = 0; round < args.rounds; ++round) {
        Sample s[2];
        for (int k = 0; k < 2; ++k) {
          const bool cut = (k == 0) == (round % 2 == 0);
          s[cut ? 0 : 1] = measure(package, length, cut, args.threads);
        }
        for (int side = 0; side < 2; ++side) {
          ttft[side].push_back(s[side].ttft_ms);
          peak[side].push_back(s[side].peak_mib);
          growth[side].push_back(std::max(s[side].peak_mib, s[side].load_peak_mib));
        }
        ratios.push_back(s[0].ttft_ms / s[1].ttft_ms);
        peak_ratios.push_back(s[0].peak_mib / s[1].peak_mib);
        same = same && s[0].token == s[1].token && s[0].logprob == s[1].logprob;
      }
      all_same = all_same && same;
      std::printf("| %s | %d | %.1f | %.1f | %.3f | %.0f | %.0f | %.3f | %.0f / %.0f | %s |\n",
                  package.filename().c_str(), length, median(ttft[0]), median(ttft[1]), median(ratios),
                  median(peak[0]), median(peak[1]), median(peak_ratios), median(growth[0]), median(growth[1]),
                  same ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
  return all_same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "logits_cut_bench: %s\n", e.what());
    return 2;
  }
}
