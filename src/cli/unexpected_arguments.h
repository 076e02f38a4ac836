// Readable usage errors for the arguments a command does not take. CLI11's own message lists
// them last-first with no hint ("The following arguments were not expected: 40 --max-tokenz");
// this names each unknown flag in the order given with the nearest flag the command has
// ("unknown flag '--max-tokenz'; did you mean '--max-tokens'?"), an unknown command with the
// nearest command, and a stray word as an unexpected argument.
// Pure functions over a parsed CLI::App tree; nothing is printed here.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::cli {

// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is close enough to be a typo of it (distance at most
// max(2, |word| / 3); ties go to the first listed), else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// Every flag `cmd` takes, long and short ("--max-new-tokens", "-n"), then its parents' flags.
std::vector<std::string> flag_names(const CLI::App& cmd);

// The names of the subcommands of `app`, in the order they were added.
std::vector<std::string> command_names(const CLI::App& app);

// The message for the arguments left over after `root` parsed (after CLI::ExtrasError), one line
// per problem, each starting "ogai[ COMMAND]: ". Looks at the deepest subcommand that parsed.
std::string unexpected_arguments_message(const CLI::App& root);

}  // namespace ogai::cli
