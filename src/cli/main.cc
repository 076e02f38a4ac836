// ogai: the command-line front end. Global flags, then one subcommand; see docs/cli.md.
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/input_file.h"
#include "base/log.h"
#include "base/version.h"
#include "cli/command.h"
#include "cli/unexpected_arguments.h"
#include "ogai/error.h"
#include "ort/session.h"

namespace {

void print_version() {
  std::printf("ogai %s (ONNX Runtime %s)\n", OGAI_VERSION, ogai::ort::runtime_version().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ogai;
  log_level();  // reads OGAI_LOG now, so a bad value is reported once, up front
  CLI::App app{"ogai: run ONNX generative-AI packages described by inference_metadata.yaml", "ogai"};
  app.require_subcommand(0, 1);
  bool version = false, verbose = false, quiet = false;
  app.add_flag("--version", version, "print ogai's and ONNX Runtime's versions");
  app.add_flag("-v,--verbose", verbose, "log more (info); OGAI_LOG=debug|trace for more");
  app.add_flag("-q,--quiet", quiet, "log errors only");

  cli::CommandResult result;
  cli::add_inspect_command(app, result);
  cli::add_template_command(app, result);
  cli::add_parse_reply_command(app, result);
  cli::add_validate_command(app, result);
  cli::add_import_command(app, result);
  cli::add_tokenize_command(app, result);
  cli::add_generate_command(app, result);
  cli::add_run_command(app, result);
  cli::add_chat_command(app, result);
  cli::add_bench_command(app, result);
  cli::add_serve_command(app, result);
  cli::add_quantize_command(app, result);
  cli::add_compare_command(app, result);
  cli::add_preprocess_command(app, result);
  cli::add_help_command(app, result);
  cli::add_completion_command(app, result);

  app.parse_complete_callback([&] {
    if (quiet) set_log_level(LogLevel::kError);
    if (verbose) set_log_level(LogLevel::kInfo);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError&) {  // CLI11 lists them last-first, without a hint
    std::fputs(cli::unexpected_arguments_message(app).c_str(), stderr);
    return cli::kExitUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai: error: %s\n", e.what());
    return cli::kExitFailure;  // commands that distinguish unreadable input (exit 2) do it themselves
  } catch (const std::filesystem::filesystem_error& e) {  // a path the user gave: not ogai's bug
    std::fprintf(stderr, "ogai: error: %s\n", filesystem_error_as_error(e).what());
    return cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ogai: internal error: %s\n", e.what());
    return cli::kExitFailure;
  }
  if (version) {
    print_version();
    return cli::kExitOk;
  }
  if (app.get_subcommands().empty()) {
    std::fputs(app.help().c_str(), stdout);
    return cli::kExitUsage;
  }
  return result.exit_code;
}
