// `ogai chat PKG [model and sampling flags]`: an interactive chat through the package's template.
// On a terminal: line editing and history (libedit), streaming replies, Ctrl-C stops the current
// reply; at the prompt Ctrl-C clears the line (twice in a row, or Ctrl-D, ends the chat, exit 0).
// Commands (both modes): /help, /reset, /system TEXT, /stats, /save FILE, /load FILE, /quit.
// /save writes the conversation as JSON {"system": TEXT, "messages": [{"role", "content"}...]};
// /load reads one back (the conversation is replaced; a bad file leaves it as it was). When stdin is not a terminal: one user
// message per input line, each reply printed plainly (as generated) followed by a newline
// (scriptable; a reply may itself contain newlines). A message that fails
// (e.g. the conversation outgrew the context) prints its error on stderr and an empty reply line;
// the chat goes on and exits 1 at the end.
#include <editline/readline.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "cli/command.h"
#include "cli/media_flags.h"
#include "cli/media_limit_flags.h"
#include "cli/model_flags.h"

namespace ogai::cli {
namespace {

std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted = true; }

constexpr const char* kHelp =
    "/help         this list\n"
    "/image FILE   attach an image to your next message (multimodal packages)\n"
    "/audio FILE   attach an audio clip to your next message\n"
    "/reset        forget the conversation\n"
    "/system TEXT  set the system message (and forget the conversation)\n"
    "/stats        tokens and speed of the last reply\n"
    "/save FILE    write the conversation as JSON\n"
    "/load FILE    read a conversation written by /save\n"
    "/quit         end the chat (also Ctrl-D, or Ctrl-C twice at the prompt)\n"
    "Ctrl-C during a reply stops it; at the prompt it clears the line.";

// readline() with Ctrl-C interrupting it instead of killing the process: returns nullptr at end
// of input, and sets `interrupted` when Ctrl-C ended the line. (A Ctrl-C in the instant between
// the prompt appearing and readline's terminal read starting counts when readline next returns.)
char* read_line(bool& interrupted) {
  struct sigaction action {}, previous {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the terminal read returns
  sigaction(SIGINT, &action, &previous);
  g_interrupted = false;
  char* line = readline("> ");
  interrupted = g_interrupted.exchange(false);
  sigaction(SIGINT, &previous, nullptr);
  return line;
}

enum class Overflow { kDrop, kStop };  // a conversation grown past the context

struct ChatFlags {
  ModelFlags model;
  SamplingFlags sampling;
  std::string system;
  Overflow overflow = Overflow::kDrop;
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
    } else if (line == "/help") {
      std::printf("%s\n", kHelp);
    } else if (line.rfind("/image ", 0) == 0 || line.rfind("/audio ", 0) == 0) {
      attach(line.substr(7), line[1] == 'a' ? MediaInput::Kind::kAudio : MediaInput::Kind::kImage, interactive);
    } else if (line.rfind("/save ", 0) == 0) {
      save(line.substr(6));
    } else if (line.rfind("/load ", 0) == 0) {
      load(line.substr(6), interactive);
    } else if (!line.empty() && line[0] == '/') {
      std::fprintf(stderr, "unknown command %s (try /help)\n", line.c_str());
    } else if (!line.empty()) {
      try_reply(line, interactive);
    }
    return true;
  }

  bool failed() const { return failed_; }


 private:
  // /image FILE, /audio FILE: read now (a bad path is reported at once), sent with the next message.
  void attach(const std::string& path, MediaInput::Kind kind, bool interactive) {
    try {
      pending_.push_back(read_media_file(path, kind, flags_.model.media_limits.max_media_bytes));
      if (interactive)
        std::printf("(%s attached to your next message)\n", kind == MediaInput::Kind::kAudio ? "audio" : "image");
    } catch (const Error& e) {
      std::fprintf(stderr, "ogai chat: error: %s\n", e.what());
      failed_ = true;
    }
  }

  // Every media part of the conversation, in order (each turn re-sends them: the prompt is the
  // whole conversation, and the prefix cache keeps what it already computed for them).
  std::vector<MediaInput> conversation_media() const {
    std::vector<MediaInput> media;
    for (const auto& m : history_)
      for (const auto& p : m.parts)
        if (p.kind != ContentPart::Kind::kText) media.push_back(p.media);
    return media;
  }

  void save(const std::string& path) {
    nlohmann::ordered_json doc = {{"system", system_}, {"messages", nlohmann::ordered_json::array()}};
    for (const auto& m : history_) doc["messages"].push_back({{"role", m.role}, {"content", m.content}});
    std::ofstream out(path);
    out << doc.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "ogai chat: cannot write %s\n", path.c_str());
      failed_ = true;
      return;
    }
    std::printf("(saved %zu messages to %s)\n", history_.size(), path.c_str());
  }

  void load(const std::string& path, bool interactive) {
    try {
      const nlohmann::json doc = parse_json_bounded<nlohmann::json>(read_file(path), path);
      std::vector<ChatMessage> messages;
      for (const auto& m : doc.at("messages")) {
        const std::string role = m.at("role").get<std::string>();
        if (role != "user" && role != "assistant")
          throw std::runtime_error("messages: role '" + role + "' (expected user or assistant)");
        messages.push_back({role, m.at("content").get<std::string>()});
      }
      system_ = doc.value("system", std::string());
      history_ = std::move(messages);
      context_.reset();
      if (interactive) std::printf("(loaded %zu messages from %s)\n", history_.size(), path.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ogai chat: cannot load %s: %s (the conversation is unchanged)\n", path.c_str(), e.what());
      failed_ = true;
    }
  }

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

  std::string render() const {
    std::vector<ChatMessage> messages;
    if (!system_.empty()) messages.push_back({"system", system_});
    messages.insert(messages.end(), history_.begin(), history_.end());
    return model_->render_chat(messages, true);
  }

  // Positions a reply should find free: --max-new-tokens, else a quarter of the context (<= 256).
  std::int64_t reply_room(std::int64_t context) const {
    if (const auto& n = flags_.sampling.options.max_new_tokens) return std::min<std::int64_t>(*n, context - 1);
    return std::max<std::int64_t>(1, std::min<std::int64_t>(256, context / 4));
  }

  // The prompt of the conversation with the new user message, fitted to the context: the oldest
  // turns are dropped (the system message kept) with a notice, or, with --context-overflow stop,
  // the message is refused naming /reset and the flag.
  std::string fitted_prompt() {
    std::string prompt = render();
    const std::int64_t context = model_->info().context_length;
    if (context <= 0) return prompt;
    const std::int64_t room = reply_room(context);
    std::size_t dropped = 0;
    auto tokens = [&] { return static_cast<std::int64_t>(model_->tokenize(prompt, false).size()); };
    std::int64_t used = tokens();
    while (used + room > context && history_.size() > 1) {
      if (flags_.overflow == Overflow::kStop)
        fail(ErrorCode::kInvalidArgument, "conversation",
             "the conversation ({} tokens) leaves no room for a reply in the context of {}: /reset starts over, "
             "--context-overflow drop drops the oldest turns",
             used, context);
      // A turn is a user message and the reply to it: drop both, so roles still alternate.
      const std::size_t n = history_.size() > 2 && history_[1].role == "assistant" ? 2 : 1;
      history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(n));
      dropped += n;
      prompt = render();
      used = tokens();
    }
    if (dropped > 0)
      std::fprintf(stderr, "(dropped the %zu oldest message%s to fit the context of %lld tokens)\n", dropped,
                   dropped == 1 ? "" : "s", static_cast<long long>(context));
    if (used >= context && !flags_.sampling.options.truncate_prompt)
      fail(ErrorCode::kInvalidArgument, "prompt",
           "the message alone ({} tokens) does not fit the context of {}; /reset clears the conversation, "
           "--truncate-prompt keeps the message's end",
           used, context);
    return prompt;
  }

  void reply(const std::string& user, bool interactive) {
    history_.push_back({"user", pending_.empty() ? user : ""});
    if (!pending_.empty()) history_.back().parts = media_parts(pending_, user);
    pending_.clear();
    std::string prompt = fitted_prompt();
    GenerationOptions options = flags_.sampling.options;
    options.add_special_tokens = false;
    options.media = conversation_media();
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
  std::vector<MediaInput> pending_;  // /image, /audio: for the next user message
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
  std::printf("ogai chat — /help, /reset, /system TEXT, /stats, /save FILE, /load FILE, /quit; Ctrl-C stops a reply, twice at the prompt quits\n");
  int interrupts = 0;
  for (;;) {
    bool interrupted = false;
    char* raw = read_line(interrupted);
    if (interrupted) {
      std::free(raw);
      if (++interrupts >= 2) break;
      std::printf("\n(Ctrl-C again, /quit or Ctrl-D to leave)\n");
      continue;
    }
    if (raw == nullptr) break;  // Ctrl-D
    interrupts = 0;
    std::string line(raw);
    std::free(raw);
    if (!line.empty()) add_history(line.c_str());
    if (!session.handle(line, true)) break;
  }
  std::printf("\n");
  return kExitOk;
}

}  // namespace

void add_chat_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<ChatFlags>();
  auto* cmd = app.add_subcommand("chat", "chat with a package through its chat template");
  add_model_flags(*cmd, flags->model);
  add_chat_template_flag(*cmd, flags->model);
  cmd->add_option("--system", flags->system, "system message");
  const std::map<std::string, Overflow> overflow = {{"drop", Overflow::kDrop}, {"stop", Overflow::kStop}};
  cmd->add_option("--context-overflow", flags->overflow,
                  "when the conversation outgrows the context: drop the oldest turns (with a notice), or stop "
                  "and name /reset")
      ->transform(CLI::CheckedTransformer(overflow).description(""))
      ->type_name("drop|stop")
      ->default_str("drop");
  add_sampling_flags(*cmd, flags->sampling);
  add_media_limit_flags(*cmd, flags->model.media_limits);
  cmd->callback([&result, flags] { result.exit_code = run_chat(*flags); });
}

}  // namespace ogai::cli
