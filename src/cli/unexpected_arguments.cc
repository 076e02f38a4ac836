#include "cli/unexpected_arguments.h"

#include <algorithm>
#include <numeric>

namespace ogai::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: i-2, i-1, i.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* app = &cmd; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* opt : app->get_options()) {
      for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    }
  }
  return names;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

namespace {

// "ogai generate" for the generate subcommand, "ogai" for the root.
std::string command_path(const CLI::App& cmd) {
  std::string path;
  for (const CLI::App* app = &cmd; app != nullptr; app = app->get_parent())
    path = app->get_parent() == nullptr ? "ogai" + path : " " + app->get_name() + path;
  return path;
}

std::string unknown_flag(const CLI::App& cmd, const std::string& arg) {
  const std::string flag = arg.substr(0, arg.find('='));  // --max-tokenz=40
  const std::string guess = nearest(flag, flag_names(cmd));
  const std::string path = command_path(cmd);
  std::string line = path + ": unknown flag '" + flag + "'";
  if (!guess.empty()) line += "; did you mean '" + guess + "'?";
  return line + " (`" + path + " --help` lists its flags)\n";
}

}  // namespace

std::string unexpected_arguments_message(const CLI::App& root) {
  const CLI::App* cmd = &root;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  const std::vector<std::string> left = cmd->remaining(false);
  const std::string path = command_path(*cmd);
  std::string message;
  bool after_unknown_flag = false;
  for (const std::string& arg : left) {
    const bool flag = arg.size() > 1 && arg[0] == '-' && arg != "--";
    if (flag) {
      message += unknown_flag(*cmd, arg);
    } else if (after_unknown_flag) {
      // the value of the unknown flag just named: nothing more to say about it
    } else if (cmd == &root) {
      const std::string guess = nearest(arg, command_names(root));
      message += "ogai: unknown command '" + arg + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                 " (`ogai help` lists the commands)\n";
      break;  // what follows it are that command's arguments
    } else {
      message += path + ": unexpected argument '" + arg + "' (`" + path + " --help` shows what it takes)\n";
    }
    after_unknown_flag = flag && arg.find('=') == std::string::npos;
  }
  if (message.empty()) message = path + ": unexpected arguments\n";
  return message;
}

}  // namespace ogai::cli
