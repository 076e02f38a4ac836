// `ogai chat PKG [model and sampling flags]`: an interactive chat through the package's template.
// On a terminal: line editing and history (libedit), streaming replies, Ctrl-C stops the current
// reply, commands /reset, /system TEXT, /stats, /quit. When stdin is not a terminal: one user
// message per input line, each reply printed plainly (as generated) followed by a newline
// (scriptable; a reply may itself contain newlines). A message that fails
// (e.g. the conversation outgrew the context) prints its error on stderr and an empty reply line;
// the chat goes on and exits 1 at the end.
#include <editline/readline.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/model_flags.h"

namespace ogai::cli {
namespace {

std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted = true; }

struct ChatFlags {
  ModelFlags model;
  SamplingFlags sampling;
  std::string system;
};

class ChatSession {
 public:
  ChatSession(std::shared_ptr<const Model> model, const ChatFlags& flags)
      : model_(std::move(model)), flags_(flags), context_(*model_), system_(flags.system) {}

  // Handles one input line; returns false when the user asked to quit.
  bool handle(const std::string& line, bool interactive) {
    if (line == "/quit" || line == "/exit") return false;
    if (line == "/reset") {
      history_.clear();
      context_.reset();
      if (interactive) std::printf("(conversation cleared)\n");
    } else if (line == "/system" || line.rfind("/system ", 0) == 0) {
      system_ = line.size() > 8 ? line.substr(8) : "";
      history_.clear();
      context_.reset();
      if (interactive) std::printf("(system message set; conversation cleared)\n");
    } else if (line == "/stats") {
      print_stats();
    } else if (!line.empty() && line[0] == '/') {
      std::fprintf(stderr, "unknown command %s (try /reset, /system TEXT, /stats, /quit)\n", line.c_str());
    } else if (!line.empty()) {
      try_reply(line, interactive);
    }
    return true;
  }

  bool failed() const { return failed_; }


 private:
  // A failed reply leaves the conversation as it was before the message.
  void try_reply(const std::string& user, bool interactive) {
    try {
      reply(user, interactive);
    } catch (const Error& e) {
      history_.pop_back();
      context_.reset();  // the cache may hold part of the failed turn
      std::fflush(stdout);
      std::fprintf(stderr, "ogai chat: error: %s\n", e.what());
      if (!interactive) std::printf("\n");
      std::fflush(stdout);
      failed_ = true;
    }
  }

  void reply(const std::string& user, bool interactive) {
    history_.push_back({"user", user});
    std::vector<ChatMessage> messages;
    if (!system_.empty()) messages.push_back({"system", system_});
    messages.insert(messages.end(), history_.begin(), history_.end());
    std::string prompt = model_->render_chat(messages, true);
    GenerationOptions options = flags_.sampling.options;
    options.add_special_tokens = false;
    g_interrupted = false;
    auto previous = std::signal(SIGINT, on_sigint);
    StreamCallback stream = [interactive](const StreamEvent& e) {
      if (interactive) {
        write_text(e.text);
        std::fflush(stdout);
      }
      return !g_interrupted.load();
    };
    try {
      last_ = model_->generate(prompt, options, stream, &context_);
    } catch (...) {
      std::signal(SIGINT, previous);
      throw;
    }
    std::signal(SIGINT, previous);
    if (!interactive) write_text(last_->text);
    if (last_->finish_reason == FinishReason::kCancelled && interactive) std::printf(" [stopped]");
    std::printf("\n");
    std::fflush(stdout);
    history_.push_back({"assistant", last_->text});
  }

  void print_stats() const {
    if (!last_) {
      std::printf("(no reply yet)\n");
      return;
    }
    const Timings& t = last_->timings;
    std::printf("prompt %zu tokens, reply %zu tokens (%s); prefill %.1f ms, ttft %.1f ms, decode %.1f tok/s; "
                "context holds %zu tokens\n",
                last_->prompt_ids.size(), last_->ids.size(), finish_reason_name(last_->finish_reason), t.prefill_ms,
                t.ttft_ms, t.decode_tok_s, context_.tokens().size());
  }

  std::shared_ptr<const Model> model_;
  const ChatFlags& flags_;
  Context context_;
  std::string system_;
  std::vector<ChatMessage> history_;
  std::optional<GenerationResult> last_;
  bool failed_ = false;
};

int run_chat(const ChatFlags& flags) {
  auto model = load_model(flags.model);
  if (!model->info().has_chat_template) {
    std::fprintf(stderr, "ogai chat: %s has no chat template (chat_template.jinja or tokenizer_config.json)\n",
                 flags.model.package.c_str());
    return kExitFailure;
  }
  ChatSession session(model, flags);
  const bool interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  if (!interactive) {
    std::string line;
    while (std::getline(std::cin, line))
      if (!session.handle(line, false)) break;
    return session.failed() ? kExitFailure : kExitOk;
  }
  std::printf("ogai chat — /reset, /system TEXT, /stats, /quit; Ctrl-C stops a reply\n");
  while (char* raw = readline("> ")) {
    std::string line(raw);
    std::free(raw);
    if (!line.empty()) add_history(line.c_str());
    if (!session.handle(line, true)) break;
  }
  return kExitOk;
}

}  // namespace

void add_chat_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<ChatFlags>();
  auto* cmd = app.add_subcommand("chat", "chat with a package through its chat template");
  add_model_flags(*cmd, flags->model);
  cmd->add_option("--system", flags->system, "system message");
  add_sampling_flags(*cmd, flags->sampling);
  cmd->callback([&result, flags] { result.exit_code = run_chat(*flags); });
}

}  // namespace ogai::cli
