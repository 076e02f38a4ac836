// Structured-output flags shared by subcommands: --json-schema FILE | --json-object | --regex RE |
// --grammar FILE (GBNF), at most one (docs/structured_output.md).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "ogai/options.h"

namespace ogai::cli {

struct FormatFlags {
  std::string json_schema_file;
  bool json_object = false;
  std::string regex;
  std::string grammar_file;
};

void add_format_flags(CLI::App& cmd, FormatFlags& flags);
// The response format the flags ask for (files read here; ogai::Error naming the flag and path).
std::optional<ResponseFormat> response_format(const FormatFlags& flags);

}  // namespace ogai::cli
