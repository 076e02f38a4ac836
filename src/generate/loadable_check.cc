#include "generate/loadable_check.h"

#include <string>
#include <system_error>

#include "chat/chat_template.h"
#include "ogai/error.h"
#include "ort/session.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {
namespace {

// `file` relative to the package root (messages never need the absolute path).
std::string package_relative(const std::filesystem::path& file, const std::filesystem::path& root) {
  std::error_code ec;
  std::string rel = std::filesystem::relative(file, root, ec).string();
  return ec || rel.empty() ? file.filename().string() : rel;
}

}  // namespace

void check_loadable_text(metadata::ValidationReport& report) {
  if (!report.package) return;
  const metadata::PackageFiles& files = report.package->files;
  if (files.root.empty()) return;
  const metadata::TextSources& text = files.text;
  if (text.tokenizer_json) {
    try {
      (void)tokenizer::Tokenizer::load(*text.tokenizer_json);
    } catch (const Error& e) {
      report.diagnostics.report("LOAD", package_relative(*text.tokenizer_json, files.root), "{}", e.message());
    }
  }
  if (!text.chat_template_file && !text.chat_template) return;
  try {
    (void)chat::ChatTemplate::load(files.root);
  } catch (const Error& e) {
    std::string where = e.where().empty() ? std::string("chat template") : e.where();
    std::string suffix;  // a template's "file:line:column"
    if (auto colon = where.find(':', where.rfind('/') + 1); colon != std::string::npos) suffix = where.substr(colon), where.resize(colon);
    report.diagnostics.report("LOAD", package_relative(where, files.root) + suffix, "{}", e.message());
  }
}

void check_loadable_graphs(metadata::ValidationReport& report) {
  if (!report.package) return;
  const metadata::PackageFiles& files = report.package->files;
  if (files.root.empty()) return;
  ort::SessionOptions options;
  options.graph_optimization_level = 0;
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  for (const auto& [component, graph] : files.component_artifacts) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(graph, ec)) continue;  // a missing file is the rules' to report
    try {
      (void)ort::Session::open(graph, options);
    } catch (const Error& e) {
      // ORT's model loading (protobuf parse, graph resolution, operator lookup) says "Load model
      // from ... failed"; a session's later initialization limits (e.g. a graph of no nodes that
      // the memory planner refuses) are not damage, and running reports them.
      if (e.message().find("Load model from") == std::string::npos) continue;
      report.diagnostics.report("LOAD", package_relative(graph, files.root), "ONNX Runtime cannot load it: {}",
                                e.message());
    }
  }
}

}  // namespace ogai::generate
