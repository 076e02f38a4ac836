// `ogai quantize SRC DST [--bits 4] [--block-size 16|32|64|128] [--symmetric|--asymmetric]
// [--accuracy-level 0-4] [--exclude NODE_OR_PATTERN]... [--lm-head|--no-lm-head] [--embeddings]
// [--lm-head-bits 4|8] [--embeddings-bits 4|8] [--force]`:
// writes DST, a copy of the package SRC whose eligible MatMuls are 4-bit com.microsoft
// MatMulNBits and whose lm-head is 8-bit by default (src/quantize; docs/quantize.md). Before DST appears, the result is validated like
// `ogai validate` (when SRC has metadata) and every graph's inputs and outputs are compared with
// the source's. Prints per graph the MatMuls quantized and skipped (with the reason) and the
// bytes before and after; on stderr a progress bar on a terminal, one summary line otherwise.
// DST is written beside itself and renamed into place; an existing DST is replaced only when it
// is an empty directory or (with --force) a package ogai wrote, never anything else
// (base/staged_output.h). Exit 0 written, 1 refused (nothing eligible, DST exists or is not
// ogai's, the result would be invalid), 2 usage or unreadable input.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "base/error.h"
#include "cli/command.h"
#include "generate/loadable_check.h"
#include "metadata/package.h"
#include "onnx/graph_info.h"
#include "quantize/package_quantize.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;
using quantize::GraphReport;
using quantize::NodeDecision;

struct QuantizeArgs {
  std::string src, dst;
  quantize::QuantizeOptions options;
  bool asymmetric = false, symmetric = false, force = false;
  bool lm_head_at_bits = false, no_lm_head = false, lm_head_bits_given = false;
};

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024.0));
}

bool has_metadata(const fs::path& dir) {
  for (const char* name : {"inference_metadata.yaml", "inference_metadata.yml",
                           "inference_metadata.json", "genai_config.json"})
    if (fs::exists(dir / name)) return true;
  return false;
}

std::string interface_text(const onnx::GraphInfo& info) {
  std::string text;
  for (const auto* list : {&info.inputs, &info.outputs})
    for (const auto& v : *list)
      if (!info.is_initializer(v.name))
        text += fmt::format("{}:{}:{};", v.name, dtype_name(v.dtype), v.rank());
  return text;
}

// Refuses an assembled package that would not validate or whose graphs changed interface.
void verify_result(const fs::path& src, const fs::path& dir) {
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".onnx") continue;
    const fs::path rel = fs::relative(entry.path(), dir);
    if (interface_text(onnx::read_graph_info(src / rel)) !=
        interface_text(onnx::read_graph_info(entry.path())))
      fail(ErrorCode::kInternal, rel.string(),
           "the quantized graph's inputs or outputs differ from the source's");
  }
  if (!has_metadata(src)) return;
  metadata::ValidationReport report = metadata::validate_package(dir);
  generate::check_loadable_text(report);
  if (report.valid()) return;
  std::string problems;
  for (const auto& d : report.diagnostics.items()) problems += "\n  " + d.text();
  fail(ErrorCode::kInvalidPackage, dir.string(), "the quantized package does not validate:{}",
       problems);
}

void print_graph(const GraphReport& g) {
  std::size_t matmuls = 0, quantized = 0, embeddings = 0;
  for (const auto& d : g.plan.decisions) {
    if (d.kind == NodeDecision::Kind::kMatMul)
      ++matmuls, quantized += d.quantize;
    else
      embeddings += d.quantize;
  }
  if (!g.rewritten) {
    std::printf("%s: nothing eligible, copied unchanged (%zu MatMuls)\n", g.graph.c_str(), matmuls);
  } else {
    std::printf("%s: %zu of %zu MatMuls quantized%s; weights %s -> %s; initializers %s -> %s\n",
                g.graph.c_str(), quantized, matmuls,
                embeddings ? ", token embedding quantized" : "", mib(g.weight_bytes_before).c_str(),
                mib(g.weight_bytes_after).c_str(), mib(g.bytes_before).c_str(),
                mib(g.bytes_after).c_str());
  }
  for (const auto& d : g.plan.decisions) {
    const char* what = d.kind == NodeDecision::Kind::kGather ? "Gather" : "MatMul";
    if (d.quantize)
      std::printf("  quantized %s %s [%lld x %lld]%s\n", what, d.label.c_str(),
                  static_cast<long long>(d.k), static_cast<long long>(d.n),
                  d.lm_head ? " (lm-head)" : "");
    else
      std::printf("  skipped %s %s: %s\n", what, d.label.c_str(), d.reason.c_str());
  }
}

// The process's peak resident memory (VmHWM of /proc/self/status: this program's own, not what a
// parent had before exec), in bytes; 0 when unknown.
std::uint64_t peak_rss() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) break;
  std::fclose(f);
  return kib * 1024;
}

class ProgressBar {
 public:
  ProgressBar() : tty_(isatty(STDERR_FILENO) == 1) {}
  void operator()(std::uint64_t done, std::uint64_t total) {
    if (!tty_ || total == 0) return;
    const int percent = static_cast<int>(done * 100 / total);
    if (percent == last_) return;
    last_ = percent;
    constexpr int kWidth = 40;
    const int filled = percent * kWidth / 100;
    std::fprintf(stderr, "\rquantizing [%s%s] %3d%%  %s / %s", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), percent, mib(done).c_str(),
                 mib(total).c_str());
    std::fflush(stderr);
  }
  void finish() {
    if (tty_ && last_ >= 0) std::fputc('\n', stderr);
  }

 private:
  bool tty_;
  int last_ = -1;
};

// ", lm-head 8-bit" when a part has its own bits.
std::string bits_note(const char* part, int bits, int base) {
  return bits && bits != base ? std::string(", ") + part + " " + std::to_string(bits) + "-bit" : std::string();
}

int run_quantize(QuantizeArgs& args) {
  args.options.block.symmetric = !args.asymmetric;
  // The default lm-head is 8-bit; --lm-head puts it at --bits, --lm-head-bits at its own bits.
  if (args.lm_head_at_bits && !args.lm_head_bits_given) args.options.lm_head_bits = 0;
  if (args.no_lm_head) args.options.lm_head = false;
  if (args.options.embedding_bits) args.options.embeddings = true;
  const auto start = std::chrono::steady_clock::now();
  ProgressBar bar;
  quantize::PackageReport report;
  try {
    report = quantize::quantize_package(
        args.src, args.dst, args.options, args.force,
        [&](std::uint64_t d, std::uint64_t t) { bar(d, t); },
        [&](const fs::path& dir) { verify_result(args.src, dir); });
  } catch (const Error& e) {
    bar.finish();
    std::fprintf(stderr, "ogai quantize: %s\n", e.what());
    const bool unreadable = e.code() == ErrorCode::kNotFound || e.code() == ErrorCode::kParse;
    return unreadable ? kExitUsage : kExitFailure;
  }
  bar.finish();
  std::uint64_t before = 0, after = 0;
  std::size_t nodes = 0;
  for (const auto& g : report.graphs) {
    print_graph(g);
    before += g.rewritten ? g.bytes_before : 0;
    after += g.rewritten ? g.bytes_after : 0;
    nodes += g.rewritten ? g.plan.quantized() : 0;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr,
               "ogai quantize: wrote %s: %zu nodes in %zu graphs to %d-bit%s%s (block %d, %s, "
               "accuracy_level %d), "
               "%s -> %s, %zu files copied, %.1f s, peak memory %s\n",
               args.dst.c_str(), nodes, report.graphs.size(), args.options.bits,
               bits_note("lm-head", args.options.lm_head ? args.options.lm_head_bits : 0, args.options.bits).c_str(),
               bits_note("embedding", args.options.embedding_bits, args.options.bits).c_str(),
               args.options.block.block_size,
               args.options.block.symmetric ? "symmetric" : "asymmetric",
               args.options.accuracy_level, mib(before).c_str(), mib(after).c_str(),
               report.files_copied, seconds, mib(peak_rss()).c_str());
  return kExitOk;
}

}  // namespace

void add_quantize_command(CLI::App& app, CommandResult& result) {
  auto* cmd =
      app.add_subcommand("quantize", "write a copy of a package with 4-bit (or 8-bit) MatMulNBits weights");
  auto args = std::make_shared<QuantizeArgs>();
  auto& o = args->options;
  cmd->add_option("SRC", args->src, "the fp32/fp16 package directory")->required();
  cmd->add_option("DST", args->dst, "the package directory to write")->required();
  cmd->add_option("--bits", o.bits, "bits per weight: 4 (default) or 8")->check(CLI::IsMember({4, 8}));
  cmd->add_option("--block-size", o.block.block_size, "weights per scale along K (default 32)")
      ->check(CLI::IsMember({16, 32, 64, 128}));
  auto* sym =
      cmd->add_flag("--symmetric", args->symmetric, "zero point 8, no zero_points input (default)");
  auto* asym = cmd->add_flag("--asymmetric", args->asymmetric, "a zero point per block");
  sym->excludes(asym);
  cmd->add_option("--accuracy-level", o.accuracy_level,
                  "MatMulNBits accuracy_level: 0 unset, 1 fp32, 2 fp16, 3 bf16, 4 int8 activations "
                  "(default 4)")
      ->check(CLI::Range(0, 4));
  cmd->add_option("--exclude", o.exclude,
                  "leave a node unquantized: its name, output or weight name, or a glob");
  auto* at_bits = cmd->add_flag("--lm-head", args->lm_head_at_bits,
                "quantize the output projection at --bits (by default it is quantized at 8 bits; also "
                "when tied to the embedding)");
  auto* fp_head = cmd->add_flag("--no-lm-head", args->no_lm_head, "leave the output projection unquantized");
  fp_head->excludes(at_bits);
  cmd->add_flag("--embeddings", o.embeddings,
                "quantize the token-embedding Gather as GatherBlockQuantized");
  cmd->add_option("--lm-head-bits", o.lm_head_bits, "quantize the output projection at 4 or 8 bits (default 8)")
      ->check(CLI::IsMember({4, 8}))
      ->excludes(fp_head)
      ->each([args](const std::string&) { args->lm_head_bits_given = true; });
  cmd->add_option("--embeddings-bits", o.embedding_bits,
                  "quantize the token-embedding Gather at 4 or 8 bits (implies --embeddings)")
      ->check(CLI::IsMember({4, 8}));
  cmd->add_flag("--force", args->force, "replace DST when it is a package ogai wrote");
  cmd->callback([&result, args] { result.exit_code = run_quantize(*args); });
}

}  // namespace ogai::cli
