// Shell completion scripts for ogai, generated from the CLI's own command and flag table (the
// CLI::App tree main.cc builds), so a new flag completes without editing a script by hand.
// bash: a `complete -F` function; zsh: a `#compdef ogai` function (compdef or fpath); fish: one
// `complete -c ogai` line per command and flag. Completed: the commands and global flags, each
// command's flags (with their help in zsh and fish), the commands after `help`, the shells after
// `completion`, and file names for a command's other arguments (PKG, PATH, ...).
// Pure functions; the text is deterministic.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ogai::cli {

struct FlagSpec {
  std::vector<std::string> longs;   // "max-new-tokens" (no dashes)
  std::vector<std::string> shorts;  // "n"
  std::string help;
  bool takes_value = false;
};

struct CommandSpec {
  std::string name;  // empty for the root (global flags)
  std::string help;
  std::vector<FlagSpec> flags;
  std::vector<std::string> words;  // fixed words its positional takes (help: the commands), else files
};

// The root's flags first (name ""), then every subcommand in the order added.
std::vector<CommandSpec> command_specs(const CLI::App& root);

inline constexpr const char* kCompletionShells[] = {"bash", "zsh", "fish"};

// The script for `shell` (one of kCompletionShells).
std::string completion_script(const std::vector<CommandSpec>& commands, const std::string& shell);

}  // namespace ogai::cli
