// A package whose workflow needs the interpreter (loops, policies, adapters) runs through
// workflow_generate.h instead of the native loop.
// `ogai generate PKG [--prompt TEXT | --prompt-file FILE | --prompt-ids JSON | stdin] [--chat] [--system TEXT] [sampling flags]
//  [--tools FILE] [--tool-choice auto|none|required|NAME] [--tool-call-format F] [--var KEY=JSON]...
//  [--image FILE]... [--audio FILE]... [--stream] [--json]`
// --image / --audio (multimodal packages, docs/multimodal.md): a raw prompt pairs them with its
// placeholders (<|image|>, ...), each kind in order; with --chat the user message gets one media
// part per file (images, then audio, then the text) and the template writes the placeholders.
// --prompt-ids feeds token ids exactly (no BOS added); on a package without a tokenizer the reply
// prints as space-separated ids (--json: "text" is empty).
// Plain mode prints the generated text only (a newline is added only on a terminal); --json prints
// {"prompt_ids","ids","text","finish_reason","timings":{load_ms,prefill_ms,decode_ms,ttft_ms,decode_tok_s,
// runtime_ms,onnxruntime_ms,queue_ms,cached_prompt_tokens}} on one line, keys in this order; `--logprobs N` (with --json only)
// appends "logprobs":[{"id","logprob","top":[{"id","logprob"}...]}...], one per generated id;
// `--prompt-logprobs` (with --logprobs) then appends "prompt_logprobs": one per prompt id, null first.
// With --chat and tools or a template with a reasoning section, the reply is parsed (ogai::ChatReply):
// --json appends "content", "reasoning_content" and "tool_calls": [{"id","type":"function",
// "function":{"name","arguments"}}...]; plain mode prints the content, then each call as one JSON line.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>
#include <optional>

#include <cstdio>

#include "base/file.h"
#include "base/input_file.h"
#include "cli/chat_flags.h"
#include "cli/command.h"
#include "cli/format_flags.h"
#include "cli/media_flags.h"
#include "cli/media_limit_flags.h"
#include "cli/model_flags.h"
#include "cli/prompt_ids.h"
#include "cli/workflow_generate.h"

namespace ogai::cli {
namespace {

struct GenerateFlags {
  ModelFlags model;
  SamplingFlags sampling;
  FormatFlags format;
  ChatFlags chat_flags;
  std::string prompt;       // "-" = standard input
  std::string prompt_file;
  std::string prompt_ids;   // --prompt-ids JSON
  bool chat = false;
  std::string system;
  bool stream = false;
  bool json = false;
  int logprobs = -1;  // -1: not asked
  bool prompt_logprobs = false;
  std::vector<std::string> inputs;  // interpreted workflow packages only
  MediaFlags media;                 // --image / --audio
};

nlohmann::ordered_json logprobs_json(const std::vector<TokenLogprobs>& entries) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TokenLogprobs& e : entries) {
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const TokenLogprob& t : e.top) top.push_back({{"id", t.id}, {"logprob", t.logprob}});
    list.push_back({{"id", e.id}, {"logprob", e.logprob}, {"top", std::move(top)}});
  }
  return list;
}

nlohmann::ordered_json prompt_logprobs_json(const std::vector<std::optional<TokenLogprobs>>& entries) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : entries) {
    if (e) list.push_back(logprobs_json({*e})[0]);
    else list.push_back(nullptr);
  }
  return list;
}

nlohmann::ordered_json result_json(const GenerationResult& r, bool speculative, bool logprobs) {
  const Timings& t = r.timings;
  nlohmann::ordered_json j = {{"prompt_ids", r.prompt_ids},
          {"ids", r.ids},
          {"text", r.text},
          {"finish_reason", finish_reason_name(r.finish_reason)},
          {"timings",
           {{"load_ms", t.load_ms},
            {"prefill_ms", t.prefill_ms},
            {"decode_ms", t.decode_ms},
            {"ttft_ms", t.ttft_ms},
            {"decode_tok_s", t.decode_tok_s},
            {"runtime_ms", t.runtime_ms},
            {"onnxruntime_ms", t.onnxruntime_ms},
            {"queue_ms", t.queue_ms},
            {"cached_prompt_tokens", r.cached_prompt_tokens}}}};
  if (speculative) j["speculative"] = {{"draft_tokens", r.draft_tokens}, {"accepted_draft_tokens", r.accepted_draft_tokens}};
  if (logprobs) j["logprobs"] = logprobs_json(r.logprobs);
  if (!r.prompt_logprobs.empty()) j["prompt_logprobs"] = prompt_logprobs_json(r.prompt_logprobs);
  return j;
}

nlohmann::ordered_json tool_calls_json(const std::vector<ToolCall>& calls) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ToolCall& c : calls)
    list.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  return list;
}

bool parses_reply(const ChatPrompt& p) { return p.parse_tool_calls || p.parse_reasoning; }

// The prompt: --prompt TEXT, --prompt-file FILE, or standard input (--prompt -, or no prompt
// flag while standard input is not a terminal); nullopt when there is none.
std::optional<std::string> prompt_text(const GenerateFlags& f) {
  if (!f.prompt_file.empty()) return read_file(f.prompt_file, kMaxTextInputBytes);
  const bool from_stdin = f.prompt == "-" || (f.prompt.empty() && !isatty(STDIN_FILENO));
  if (!from_stdin) return f.prompt.empty() ? std::nullopt : std::optional<std::string>(f.prompt);
  std::string text = read_stdin("standard input (the prompt)", kMaxTextInputBytes);
  if (text.ends_with('\n')) text.pop_back();  // `echo text |` adds one
  if (text.empty() && f.prompt.empty()) return std::nullopt;
  return text;
}

// A usage error the flags make on their own (printed), or nothing.
bool flags_conflict(const GenerateFlags& f) {
  const char* problem = nullptr;
  if (f.logprobs >= 0 && !f.json) problem = "--logprobs needs --json";
  else if (f.prompt_logprobs && f.logprobs < 0) problem = "--prompt-logprobs needs --logprobs N";
  else if (!f.prompt_ids.empty() && f.chat) problem = "--prompt-ids cannot be combined with --chat (the ids are the prompt)";
  if (problem) std::fprintf(stderr, "ogai generate: %s\n", problem);
  return problem != nullptr;
}

// A package the workflow interpreter runs: no chat, no --image/--audio (media go in as --input).
int run_interpreted(const GenerateFlags& f, const std::string& prompt, const std::optional<std::vector<std::int32_t>>& ids,
                    const std::optional<ResponseFormat>& format) {
  if (f.chat || !f.system.empty()) {
    std::fprintf(stderr, "ogai generate: --chat and --system are not supported for interpreted workflow packages\n");
    return kExitUsage;
  }
  if (f.media.any()) {
    std::fprintf(stderr, "ogai generate: --image and --audio apply to packages the native engine runs (an interpreted "
                         "workflow takes media as --input NAME=@FILE)\n");
    return kExitUsage;
  }
  ModelFlags model = f.model;
  model.workflow_inputs = f.inputs;
  WorkflowGenerateArgs args{model, prompt, f.sampling.options, f.stream, f.json, ids};
  if (f.logprobs >= 0) args.options.logprobs = f.logprobs;
  args.options.response_format = format;
  return run_workflow_generate(args);
}

// The chat turn --chat makes of the prompt (with --system, the media as parts, the chat flags), or
// nothing without --chat; a usage error (printed) sets `usage`.
std::optional<ChatPrompt> chat_prompt(const Model& model, const GenerateFlags& f, const std::string& read,
                                      const std::vector<MediaInput>& media, const std::optional<ResponseFormat>& format,
                                      bool& usage) {
  if (!f.chat) {
    usage = !f.system.empty() || f.chat_flags.any();
    if (usage) std::fprintf(stderr, "ogai generate: --system, --tools, --tool-choice, --tool-call-format and --var need --chat\n");
    return std::nullopt;
  }
  std::vector<ChatMessage> messages;
  if (!f.system.empty()) messages.push_back({"system", f.system});
  messages.push_back({"user", media.empty() ? read : ""});
  if (!media.empty()) messages.back().parts = media_parts(media, read);
  ChatPrompt chat = model.prepare_chat(messages, chat_options(f.chat_flags));
  usage = chat.constraint && format;
  if (usage) std::fprintf(stderr, "ogai generate: a forced tool call (--tool-choice) cannot be combined with a format flag\n");
  return chat;
}

GenerationOptions native_options(const GenerateFlags& f, const std::optional<ChatPrompt>& chat,
                                 const std::optional<ResponseFormat>& format, const std::vector<MediaInput>& media) {
  GenerationOptions options = f.sampling.options;
  if (f.chat) options.add_special_tokens = false;  // the template writes the special tokens itself
  if (f.logprobs >= 0) options.logprobs = f.logprobs;
  options.prompt_logprobs = f.prompt_logprobs;
  options.response_format = chat && chat->constraint ? chat->constraint : format;
  options.media = chat ? chat->media : media;
  return options;
}

// The result after generation: one JSON line with --json, else the text (or ids) not yet streamed
// and one JSON line per parsed tool call.
void print_result(const GenerateFlags& f, const GenerationResult& result, const GenerationOptions& options,
                  const std::optional<ChatReply>& reply, std::optional<ChatReplyParser>& parser, bool as_ids) {
  if (f.json) {
    const bool speculative = options.speculative.drafter != SpeculativeOptions::Drafter::kNone;
    nlohmann::ordered_json doc = result_json(result, speculative, f.logprobs >= 0);
    if (f.sampling.random_seed) doc["seed"] = *options.sampling.seed;  // --seed -1: the seed drawn
    if (reply) {
      doc["content"] = reply->content;
      doc["reasoning_content"] = reply->reasoning_content;
      doc["tool_calls"] = tool_calls_json(reply->tool_calls);
    }
    std::printf("%s\n", doc.dump().c_str());
    return;
  }
  if (parser && f.stream) write_text(parser->finish().content);
  else if (!f.stream) write_text(as_ids ? ids_text(result.ids) : reply ? reply->content : result.text);
  const bool calls = reply && !reply->tool_calls.empty();
  if (calls && !reply->content.empty()) std::fputc('\n', stdout);
  if (calls)  // one JSON line per call
    for (const auto& call : tool_calls_json(reply->tool_calls)) std::printf("%s\n", call.dump().c_str());
  else if (isatty(STDOUT_FILENO)) std::fputc('\n', stdout);
}

int run_generate(const GenerateFlags& f) {
  if (flags_conflict(f)) return kExitUsage;
  std::optional<std::vector<std::int32_t>> ids;
  if (!f.prompt_ids.empty()) ids = parse_prompt_ids(f.prompt_ids, "--prompt-ids");
  // An audio clip with no prompt flag: an encoder-decoder speech package (Whisper) transcribes it with
  // its forced prompt (docs/encoder_decoder.md); standard input is not read.
  const bool audio_only = !f.media.audio.empty() && f.prompt.empty() && f.prompt_file.empty();
  std::optional<std::string> read = ids || audio_only ? std::optional<std::string>("") : prompt_text(f);
  if (!read) {
    std::fprintf(stderr, "ogai generate: give a prompt: --prompt TEXT, --prompt-file FILE, or text on standard input\n");
    return kExitUsage;
  }
  const std::optional<ResponseFormat> format = response_format(f.format);
  if (format) check_response_format(*format);  // a bad schema fails before the model loads
  if (is_interpreted_package(f.model.package)) return run_interpreted(f, *read, ids, format);
  if (!f.inputs.empty()) {
    std::fprintf(stderr, "ogai generate: --input applies to interpreted workflow packages only\n");
    return kExitUsage;
  }
  double load_ms = 0;
  auto model = load_model(f.model, &load_ms);
  const std::vector<MediaInput> media = read_media(f.media, f.model.media_limits);
  bool usage = false;
  const std::optional<ChatPrompt> chat = chat_prompt(*model, f, *read, media, format, usage);
  if (usage) return kExitUsage;
  const GenerationOptions options = native_options(f, chat, format, media);
  const bool parsed = chat && (parses_reply(*chat) || !f.chat_flags.tools_file.empty());
  std::optional<ChatReplyParser> parser;
  if (parsed) parser.emplace(*chat);
  const bool as_ids = !model->info().has_tokenizer;  // a token-id package: the reply prints as ids
  StreamCallback on_token;
  bool first_id = true;
  if (f.stream && !f.json)
    on_token = [&parser, as_ids, &first_id](const StreamEvent& e) {
      if (as_ids) std::printf("%s%d", first_id ? "" : " ", e.token);
      else write_text(parser ? std::string_view(parser->feed(e.text).content) : e.text);
      first_id = false;
      std::fflush(stdout);
      return true;
    };
  GenerationResult result = ids ? model->generate(std::span<const std::int32_t>(*ids), options, on_token)
                                : model->generate(chat ? chat->text : *read, options, on_token);
  result.timings.load_ms = load_ms;
  std::optional<ChatReply> reply;
  if (parsed) reply = parse_chat_reply(*chat, result.text);
  print_result(f, result, options, reply, parser, as_ids);
  return kExitOk;
}

}  // namespace

void add_generate_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<GenerateFlags>();
  auto* cmd = app.add_subcommand("generate", "generate text from a prompt");
  add_model_flags(*cmd, flags->model);
  add_chat_template_flag(*cmd, flags->model);
  auto* prompt = cmd->add_option("-p,--prompt", flags->prompt,
                                 "the prompt text; '-' reads it from standard input, as does leaving it out when "
                                 "standard input is not a terminal");
  // `ogai generate PKG "text"` (ollama's `run MODEL PROMPT`): the second positional is the prompt.
  auto* positional = cmd->add_option("PROMPT", flags->prompt, "the prompt text, as --prompt (after PKG)")->excludes(prompt);
  auto* file = cmd->add_option("--prompt-file", flags->prompt_file, "read the prompt from this file")
                   ->excludes(prompt)
                   ->excludes(positional);
  cmd->add_option("--prompt-ids", flags->prompt_ids,
                  "the prompt as a JSON array of token ids, fed exactly (no BOS added); the only prompt a package "
                  "without tokenizer.json takes")
      ->excludes(prompt)
      ->excludes(positional)
      ->excludes(file);
  cmd->add_flag("--chat", flags->chat, "render the prompt through the chat template as one user turn");
  cmd->add_option("--system", flags->system, "system message (with --chat)");
  add_sampling_flags(*cmd, flags->sampling);
  add_format_flags(*cmd, flags->format);
  add_chat_flags(*cmd, flags->chat_flags);
  add_media_flags(*cmd, flags->media);
  add_media_limit_flags(*cmd, flags->model.media_limits);
  cmd->add_flag("--stream", flags->stream, "print text as it is generated");
  cmd->add_flag("--json", flags->json, "print one JSON object with ids, text, finish_reason and timings");
  cmd->add_option("--logprobs", flags->logprobs,
                  "with --json: each generated token's log-probability and the N most likely alternatives")
      ->check(CLI::Range(0, 20));
  cmd->add_flag("--prompt-logprobs", flags->prompt_logprobs,
                "with --logprobs: also each prompt token's log-probability (null for the first)");
  cmd->add_option("--input", flags->inputs,
                  "NAME=JSON or NAME=@FILE.npy: a named tensor for an interpreted workflow package (see `ogai run`)");
  cmd->callback([&result, flags] { result.exit_code = run_generate(*flags); });
}

}  // namespace ogai::cli
