#include "quantize/package_quantize.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "base/error.h"
#include "base/staged_output.h"

namespace ogai::quantize {
namespace {

namespace fs = std::filesystem;

struct GraphJob {
  fs::path relative;
  std::unique_ptr<SourceModel> source;
  GraphReport report;
};

constexpr const char* kForceHint = " (pass --force to replace it)";

std::vector<fs::path> package_files(const fs::path& src) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(src))
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), src));
  std::sort(files.begin(), files.end());
  return files;
}

std::string reason_summary(const std::vector<GraphJob>& jobs) {
  std::string text;
  for (const auto& job : jobs) {
    std::map<std::string, int> reasons;
    for (const auto& d : job.report.plan.decisions) ++reasons[d.reason];
    text += fmt::format("; {}: {} MatMul/embedding nodes", job.relative.string(),
                        job.report.plan.decisions.size());
    for (const auto& [reason, count] : reasons) text += fmt::format(", {} {}", count, reason);
  }
  return text;
}

void copy_into(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  std::error_code error;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
  if (error)
    fail(ErrorCode::kRuntime, to.string(), "copying {} failed: {}", from.string(), error.message());
}

}  // namespace

PackageReport quantize_package(const fs::path& src, const fs::path& dst,
                               const QuantizeOptions& options, bool force, const Progress& progress,
                               const Verify& verify) {
  if (!fs::is_directory(src)) fail(ErrorCode::kNotFound, src.string(), "not a package directory");
  check_replaceable_directory(dst, force, kForceHint);  // refused before any work
  const fs::path abs_src = fs::weakly_canonical(src), abs_dst = fs::weakly_canonical(dst);
  if (abs_dst == abs_src || abs_dst.string().starts_with(abs_src.string() + "/") ||
      abs_src.string().starts_with(abs_dst.string() + "/"))
    fail(ErrorCode::kInvalidArgument, dst.string(), "must lie outside the source package {}",
         src.string());

  std::vector<GraphJob> jobs;
  const std::vector<fs::path> files = package_files(src);
  for (const auto& rel : files) {
    if (rel.extension() != ".onnx") continue;
    GraphJob job{rel, std::make_unique<SourceModel>(src / rel), {}};
    job.report.graph = rel.string();
    job.report.plan = plan_model(*job.source, options);
    jobs.push_back(std::move(job));
  }
  std::size_t eligible = 0;
  for (const auto& job : jobs) eligible += job.report.plan.quantized();
  if (jobs.empty())
    fail(ErrorCode::kUnsupported, src.string(),
         "the package holds no binary .onnx graph to quantize");
  if (eligible == 0)
    fail(ErrorCode::kUnsupported, src.string(), "no graph has an eligible MatMul{}",
         reason_summary(jobs));

  // Files the rewritten graphs replace: themselves and their external data.
  std::set<fs::path> replaced;
  std::uint64_t total = 0;
  for (const auto& job : jobs) {
    if (!job.report.plan.changes_graph()) continue;
    replaced.insert(job.relative);
    for (const auto& location : job.source->external_files())
      replaced.insert((job.relative.parent_path() / location).lexically_normal());
    for (const auto& t : job.source->initializers()) total += t.length;
  }

  StagedDirectory staged(dst, force, kForceHint);
  const fs::path& tmp = staged.path();

  PackageReport report;
  for (const auto& rel : files) {
    if (replaced.count(rel.lexically_normal()) || rel == kPackageMarker) continue;
    copy_into(src / rel, tmp / rel);
    ++report.files_copied;
  }
  std::uint64_t base = 0;
  for (auto& job : jobs) {
    if (job.report.plan.changes_graph()) {
      std::uint64_t graph_bytes = 0;
      for (const auto& t : job.source->initializers()) graph_bytes += t.length;
      const Progress step = [&](std::uint64_t done, std::uint64_t) {
        if (progress) progress(base + done, total);
      };
      quantize_model(*job.source, options, tmp / job.relative, job.report, step);
      base += graph_bytes;
    }
    report.graphs.push_back(std::move(job.report));
    job.source.reset();
  }
  if (verify) verify(tmp);
  staged.commit();
  return report;
}

}  // namespace ogai::quantize
