// `ogai help [COMMAND]`: the list of commands (what `ogai --help` prints), or COMMAND's flags
// (what `ogai COMMAND --help` prints), for users of tools whose help is a command (git, ollama,
// cargo). Exit 0; an unknown COMMAND is a usage error (2) naming the nearest command.
// `ogai completion bash|zsh|fish`: prints a completion script generated from the same command and
// flag table (completion_script.h). Both are registered last, so they see every other command.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/completion_script.h"
#include "cli/unexpected_arguments.h"

namespace ogai::cli {
namespace {

int print_help(const CLI::App& root, const std::string& name) {
  if (name.empty()) {  // root.help() would show the selected subcommand's (this one's) help
    write_text(root.get_formatter()->make_help(&root, "ogai", CLI::AppFormatMode::Normal));
    return kExitOk;
  }
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == name) {
      write_text(sub->get_formatter()->make_help(sub, "ogai " + name, CLI::AppFormatMode::Normal));
      return kExitOk;
    }
  const std::string guess = nearest(name, command_names(root));
  std::fprintf(stderr, "ogai help: unknown command '%s'%s (`ogai help` lists the commands)\n", name.c_str(),
               guess.empty() ? "" : ("; did you mean '" + guess + "'?").c_str());
  return kExitUsage;
}

}  // namespace

void add_help_command(CLI::App& app, CommandResult& result) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("help", "list the commands, or print a command's flags (as COMMAND --help does)");
  cmd->add_option("COMMAND", *name, "the command whose flags to print");
  cmd->callback([&app, &result, name] { result.exit_code = print_help(app, *name); });
}

void add_completion_command(CLI::App& app, CommandResult& result) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "print a shell completion script: bash, zsh or fish");
  cmd->add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::Validator(
          [](const std::string& name) {
            for (const char* shell : kCompletionShells)
              if (name == shell) return std::string();
            return "'" + name + "' is not a shell ogai completes; expected bash, zsh or fish";
          },
          ""))
      ->type_name("bash|zsh|fish");
  cmd->footer("bash: source <(ogai completion bash)   zsh: source <(ogai completion zsh)   "
              "fish: ogai completion fish | source");
  cmd->callback([&app, &result, shell] {
    write_text(completion_script(command_specs(app), *shell));
    result.exit_code = kExitOk;
  });
}

}  // namespace ogai::cli
