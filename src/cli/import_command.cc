// `ogai import PATH [--out FILE]`: turn an ONNX Runtime GenAI folder (genai_config.json beside its
// decoder graph and tokenizer.json) or a Hugging Face Optimum / onnx-community export (config.json
// beside onnx/model.onnx; importer/optimum_import.h) into a v1 inference_metadata.yaml, checked by every rule
// `ogai validate` applies before it is written. Prints the document on stdout, or writes FILE.
// FILE is written through a sibling temporary renamed into place, and an existing FILE is replaced
// only when ogai wrote it (it starts with the importer's header line; base/staged_output.h).
// Exit 0 written, 1 refused (the field and the reason on stderr) or invalid, 2 usage or
// unreadable input (no genai_config.json, graph or tokenizer.json; malformed JSON; an --out
// that is not ogai's to replace).
#include <cstdio>
#include <memory>
#include <string>

#include "base/error.h"
#include "base/input_file.h"
#include "base/staged_output.h"
#include "cli/command.h"
#include "importer/import.h"
#include "importer/optimum_import.h"
#include "metadata/file_kind.h"
#include "metadata/validate_import.h"
#include "ogai/error.h"

namespace ogai::cli {
namespace {

// How every document the importer writes starts: an existing --out file is replaced only then.
constexpr const char* kImportedSignature = "# Imported from ";

struct ImportArgs {
  std::string path, out, dtype;
};

// The folder runs as imported (validate_import). Saved as the folder's own metadata the document
// is checked without the imported facts; say so when that would fail (a test model pairing a full
// tokenizer with a small graph: ONNX Runtime GenAI never generates the ids past the logits).
void warn_if_not_standalone(const importer::ImportResult& result) {
  const metadata::ValidationReport alone = metadata::validate_package_text(result.document, result.config_file);
  if (alone.valid()) return;
  std::fprintf(stderr,
               "ogai import: warning: the folder runs as imported, but saved as its inference_metadata.yaml this "
               "document fails %zu check(s) an imported folder is spared, first: %s\n",
               alone.diagnostics.size(), alone.diagnostics.items().front().text().c_str());
}

int run_import(const ImportArgs& args) {
  importer::ImportResult result;
  try {
    if (importer::is_optimum_folder(args.path)) {
      result = importer::import_optimum_folder(args.path, args.dtype);
    } else {
      if (!args.dtype.empty())
        fail(ErrorCode::kInvalidArgument, args.path, "--dtype picks the graph of an Optimum / onnx-community folder "
             "(config.json beside onnx/model*.onnx); this is none");
      if (!importer::is_genai_config_file(args.path) && !importer::is_genai_folder(args.path))
        std::filesystem::is_directory(args.path) ? metadata::refuse_non_package_directory(args.path)
                                                 : metadata::refuse_non_metadata_file(args.path);  // GGUF, weights: the next step
      result = importer::import_genai_folder(args.path);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai import: %s\n", e.what());
    return e.code() == ErrorCode::kUnsupported ? kExitFailure : kExitUsage;
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "ogai import: %s\n", filesystem_error_as_error(e).what());
    return kExitUsage;
  }
  for (const auto& line : result.facts.warnings)
    std::fprintf(stderr, "ogai import: %s: %s\n", result.config_file.string().c_str(), line.c_str());
  // Validated as `generate` and `validate` validate the folder, so all of them agree on it.
  metadata::ValidationReport report = metadata::validate_import(result);
  if (!report.valid()) {
    for (const auto& d : report.diagnostics.items()) std::fprintf(stderr, "%s\n", d.text().c_str());
    std::fprintf(stderr, "ogai import: the imported document is invalid (%zu problems); this is an importer bug\n",
                 report.diagnostics.size());
    return kExitFailure;
  }
  warn_if_not_standalone(result);
  if (args.out.empty()) {
    std::fwrite(result.document.data(), 1, result.document.size(), stdout);
    return kExitOk;
  }
  try {
    write_file_replacing(args.out, result.document, kImportedSignature);
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai import: --out %s\n", e.what());
    return e.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  std::fprintf(stderr, "ogai import: wrote %s (valid)\n", args.out.c_str());
  return kExitOk;
}

}  // namespace

void add_import_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("import", "write the inference_metadata.yaml of an ONNX Runtime GenAI folder "
                                           "(genai_config.json) or an Optimum export (config.json, onnx/model.onnx)");
  auto args = std::make_shared<ImportArgs>();
  cmd->add_option("PATH", args->path,
                  "a folder with genai_config.json, or config.json and onnx/model.onnx, beside tokenizer.json")
      ->required();
  cmd->add_option("--out", args->out, "write the document to FILE instead of stdout");
  cmd->add_option("--dtype", args->dtype,
                  "an Optimum folder's graph variant, by transformers.js's dtype names: fp32, fp16, q8, int8, uint8, "
                  "q4, q4f16, bnb4 (default: config.json's transformers.js_config.dtype, else fp32)");
  cmd->callback([&result, args] { result.exit_code = run_import(*args); });
}

}  // namespace ogai::cli
