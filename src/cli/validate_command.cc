// `ogai validate PATH [--json] [--abi] [--document-only]`: parse, validate and admit a package
// (or a metadata file) and list every problem. Exit 0 valid, 1 invalid, 2 usage or unreadable.
//   human: one `RULE path: message` line per problem on stdout, a summary on stderr;
//          `valid: PATH` on stdout when valid; --abi adds the decoder ABI.
//   --json: {"valid": bool, "errors": [{"rule","path","message"}], "abi": {...} | null}.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "generate/loadable_check.h"
#include "metadata/package.h"
#include "metadata/report_json.h"
#include "ogai/error.h"

namespace ogai::cli {
namespace {

using metadata::DecoderAbi;

struct ValidateArgs {
  std::string path;
  bool json = false, abi = false, document_only = false;
};

std::string geometry_text(const metadata::PortGeometry& g) {
  if (!g.known()) return g.dtype == DataType::kUndefined ? "(no graph)" : std::string(dtype_name(g.dtype));
  std::string dims;
  for (std::size_t i = 0; i < g.dims.size(); ++i)
    dims += (i ? ", " : "") + (g.dims[i] >= 0 ? std::to_string(g.dims[i]) : g.symbols[i].empty() ? "?" : g.symbols[i]);
  return fmt::format("{}[{}]", dtype_name(g.dtype), dims);
}

void print_abi(const DecoderAbi& abi) {
  auto opt = [](const std::optional<std::string>& v) { return v ? *v : std::string("-"); };
  std::printf("decoder: %s%s%s\n", abi.component.c_str(), abi.artifact.empty() ? "" : "  ", abi.artifact.string().c_str());
  std::printf("  sequence source: %s\n", opt(abi.sequence_source).c_str());
  std::printf("  inputs: token_ids=%s inputs_embeds=%s attention_mask=%s position_ids=%s\n", opt(abi.token_ids_input).c_str(),
              opt(abi.inputs_embeds_input).c_str(), opt(abi.attention_mask_input).c_str(), opt(abi.position_ids_input).c_str());
  std::printf("  outputs: logits=%s hidden_states=%s\n", opt(abi.logits_output).c_str(), opt(abi.hidden_states_output).c_str());
  std::printf("  kv: %s, aliasing %s, layout %s, %zu pairs\n", abi.kv_ownership.c_str(),
              abi.aliasing ? metadata::aliasing_name(*abi.aliasing) : "-", abi.kv_layout.c_str(), abi.kv_pairs.size());
  for (const auto& g : abi.groups)
    std::printf("  group %s: %s, update %s, evictable_prefix %s\n", g.name.c_str(), metadata::group_kind_name(g.kind),
                metadata::update_kind_name(g.update), g.evictable_prefix ? "true" : "false");
  for (const auto* pairs : {&abi.kv_pairs, &abi.cross_kv_pairs, &abi.state_pairs})
    for (const auto& p : *pairs)
      std::printf("  pair %s layer %lld %-8s %s -> %s  %s heads %lld head_dim %lld\n", p.group.c_str(),
                  static_cast<long long>(p.layer), metadata::kv_role_name(p.role), p.input.c_str(), p.output.c_str(),
                  geometry_text(p.geometry).c_str(), static_cast<long long>(p.geometry.kv_heads),
                  static_cast<long long>(p.geometry.head_dim));
  for (const auto& b : abi.borrowed)
    std::printf("  borrowed %s.%s <- %s (%s)  %s\n", b.component.c_str(), b.input.c_str(), b.cell.c_str(), b.group.c_str(),
                geometry_text(b.geometry).c_str());
  for (const auto& e : abi.other_inputs)
    std::printf("  other input %s (%s)%s%s\n", e.port.c_str(), e.purpose.c_str(), e.bound_value.empty() ? "" : " <- ",
                e.bound_value.c_str());
}

// Unreadable input (exit 2), or a genai_config.json the importer refuses (rule IMPORT, exit 1).
int report_unreadable(const ValidateArgs& args, const Error& e) {
  const bool refused = e.code() == ErrorCode::kUnsupported;
  if (args.json) {
    nlohmann::ordered_json out = {
        {"valid", false},
        {"errors", {{{"rule", refused ? "IMPORT" : "P"}, {"path", e.where()}, {"message", e.message()}}}},
        {"abi", nullptr}};
    std::printf("%s\n", out.dump(2).c_str());
  } else if (refused) {
    std::printf("IMPORT %s: %s\n", e.where().c_str(), e.message().c_str());
  }
  std::fprintf(stderr, "ogai validate: %s\n", e.what());
  return refused ? kExitFailure : kExitUsage;
}

int run_validate(const ValidateArgs& args) {
  metadata::ValidationReport report;
  try {
    report = metadata::validate_package(args.path, {.document_only = args.document_only, .optimum_dtype = {}});
    if (!args.document_only) {
      generate::check_loadable_text(report);
      if (report.valid()) generate::check_loadable_graphs(report);  // only what the rules passed is opened
    }
  } catch (const Error& e) {
    return report_unreadable(args, e);
  }
  const auto& decoder = report.package->decoder;
  if (args.json) {
    nlohmann::ordered_json out = {{"valid", report.valid()}, {"errors", metadata::diagnostics_json(report.diagnostics)},
                          {"abi", decoder ? metadata::abi_json(*decoder) : nlohmann::ordered_json(nullptr)}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    for (const auto& d : report.diagnostics.items()) std::printf("%s\n", d.text().c_str());
    if (report.valid()) std::printf("valid: %s\n", args.path.c_str());
    else std::fprintf(stderr, "invalid: %s (%zu problems)\n", args.path.c_str(), report.diagnostics.size());
    if (args.abi && decoder) print_abi(*decoder);
    if (args.abi && !decoder) std::printf("decoder: none (no sole decoder; the workflow is driven invoke by invoke)\n");
  }
  return report.valid() ? kExitOk : kExitFailure;
}

}  // namespace

void add_validate_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("validate", "check a package's inference_metadata against the v1 rules and its ONNX graphs");
  auto args = std::make_shared<ValidateArgs>();
  cmd->add_option("PATH", args->path, "a package directory or a metadata file")->required();
  cmd->add_flag("--json", args->json, "print {\"valid\", \"errors\": [{rule, path, message}], \"abi\"}");
  cmd->add_flag("--abi", args->abi, "also print the derived decoder ABI");
  cmd->add_flag("--document-only", args->document_only, "check the document only (no artifacts, no graphs)");
  cmd->callback([&result, args] { result.exit_code = run_validate(*args); });
}

}  // namespace ogai::cli
