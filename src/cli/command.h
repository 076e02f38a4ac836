// CLI subcommands. Each subcommand lives in its own file and registers itself on the root app
// through an add_*_command() function listed in main.cc. Exit codes are shared by all:
//   0 success, 1 the operation failed or the input is invalid, 2 usage error or unreadable input.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string_view>

namespace ogai::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Writes `text` to `out` as it is; an empty text writes nothing (its data() may be null, which
// fwrite must not get).
inline void write_text(std::string_view text, std::FILE* out = stdout) {
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), out);
}

// The result a subcommand's callback stores for main() to return.
struct CommandResult {
  int exit_code = kExitOk;
};

void add_inspect_command(CLI::App& app, CommandResult& result);
void add_template_command(CLI::App& app, CommandResult& result);
void add_parse_reply_command(CLI::App& app, CommandResult& result);
void add_validate_command(CLI::App& app, CommandResult& result);
void add_import_command(CLI::App& app, CommandResult& result);
void add_tokenize_command(CLI::App& app, CommandResult& result);
void add_generate_command(CLI::App& app, CommandResult& result);
void add_chat_command(CLI::App& app, CommandResult& result);
void add_bench_command(CLI::App& app, CommandResult& result);
void add_serve_command(CLI::App& app, CommandResult& result);
void add_run_command(CLI::App& app, CommandResult& result);
void add_quantize_command(CLI::App& app, CommandResult& result);
void add_compare_command(CLI::App& app, CommandResult& result);
void add_preprocess_command(CLI::App& app, CommandResult& result);
// Registered last: they read the whole command table (help_command.cc).
void add_help_command(CLI::App& app, CommandResult& result);
void add_completion_command(CLI::App& app, CommandResult& result);

}  // namespace ogai::cli
