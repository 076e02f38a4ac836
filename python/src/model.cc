// ogai.Model (load, generate, stream, chat, render_chat, info) and ogai.Tokenizer.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "chat_convert.h"
#include "chat_result.h"
#include "context_handle.h"
#include "convert.h"
#include "chat_stream.h"
#include "text_stream.h"

namespace ogai::python {

namespace {

struct TokenizerHandle {
  std::shared_ptr<const Model> model;
};

// The media budgets (include/ogai/media.h) as keywords; unset keeps the default, < 1 is an error.
struct LimitArgs {
  std::optional<std::uint64_t> parts, bytes, pixels, decoded;
  std::optional<double> seconds;
};

template <typename T>
void set_limit(const char* name, const std::optional<T>& value, T& target) {
  if (!value) return;
  if (!(*value > 0)) throw Error(ErrorCode::kInvalidArgument, name, "must be > 0");
  target = *value;
}

MediaLimits media_limits(const LimitArgs& a) {
  MediaLimits l;
  std::uint64_t parts = l.max_media_parts;
  set_limit("max_media_parts", a.parts, parts);
  l.max_media_parts = static_cast<std::size_t>(parts);
  set_limit("max_media_bytes", a.bytes, l.max_media_bytes);
  set_limit("max_image_pixels", a.pixels, l.max_image_pixels);
  set_limit("max_decoded_bytes", a.decoded, l.max_decoded_bytes);
  set_limit("max_audio_seconds", a.seconds, l.max_audio_seconds);
  return l;
}

std::shared_ptr<ModelHandle> load(const std::filesystem::path& path, const std::string& ep, std::optional<int> threads,
                                  std::vector<std::string> inputs, std::optional<std::string> dtype,
                                  std::optional<std::uint64_t> max_media_parts,
                                  std::optional<std::uint64_t> max_media_bytes,
                                  std::optional<std::uint64_t> max_image_pixels,
                                  std::optional<std::uint64_t> max_decoded_bytes,
                                  std::optional<double> max_audio_seconds) {
  LoadOptions options;
  options.execution_provider = ep;
  options.workflow_inputs = std::move(inputs);
  if (dtype) options.dtype = *dtype;
  options.media_limits =
      media_limits({max_media_parts, max_media_bytes, max_image_pixels, max_decoded_bytes, max_audio_seconds});
  if (threads) {
    if (*threads < 1) throw Error(ErrorCode::kInvalidArgument, "threads", std::to_string(*threads) + " must be >= 1");
    options.intra_op_threads = *threads;
  }
  py::gil_scoped_release release;
  return std::make_shared<ModelHandle>(ModelHandle{Model::load(path, options)});
}

// Generates without the GIL. Between tokens it takes the GIL to run pending signal handlers, so
// that Ctrl-C (KeyboardInterrupt) cancels a long generation and is raised once it has stopped.
GenerationResult run(const Model& model, const Prompt& prompt, const GenerationOptions& options,
                     std::shared_ptr<ContextHandle> context_handle) {
  ContextLease lease(std::move(context_handle));
  Context* context = lease.get();
  bool interrupted = false;
  StreamCallback check_signals = [&interrupted](const StreamEvent&) {
    py::gil_scoped_acquire gil;
    interrupted = PyErr_CheckSignals() != 0;
    return !interrupted;
  };
  GenerationResult result;
  {
    py::gil_scoped_release release;
    if (const auto* text = std::get_if<std::string>(&prompt)) result = model.generate(*text, options, check_signals, context);
    else result = model.generate(std::get<std::vector<std::int32_t>>(prompt), options, check_signals, context);
  }
  if (interrupted) throw py::error_already_set();  // the handler's exception (KeyboardInterrupt)
  return result;
}

// A result, or a TextStream when the call asked for stream=True.
// `context` (may be null) carries the conversation's KV from call to call.
py::object generate_or_stream(const ModelHandle& h, Prompt prompt, GenerateArgs args,
                              std::shared_ptr<ContextHandle> context) {
  if (args.stream)
    return py::cast(std::make_unique<TextStream>(h.model, std::move(prompt), std::move(args.options), std::move(context)));
  return py::cast(run(*h.model, prompt, args.options, std::move(context)));
}

py::object generate(const ModelHandle& h, py::handle prompt, py::kwargs kwargs) {
  auto context = take_context(*h.model, kwargs);
  return generate_or_stream(h, prompt_from("generate", prompt), generate_args("generate", kwargs), std::move(context));
}

py::object stream(const ModelHandle& h, py::handle prompt, py::kwargs kwargs) {
  auto context = take_context(*h.model, kwargs);
  GenerateArgs args = generate_args("stream", kwargs);
  args.stream = true;
  return generate_or_stream(h, prompt_from("stream", prompt), std::move(args), std::move(context));
}

std::string render_text(const ModelHandle& h, py::handle messages, bool add_generation_prompt) {
  std::vector<ChatMessage> list = chat_messages_from(messages);
  py::gil_scoped_release release;
  return h.model->render_chat(list, add_generation_prompt);
}

py::str render(const ModelHandle& h, py::handle messages, bool add_generation_prompt) {
  return to_str(render_text(h, messages, add_generation_prompt));
}

// Renders the turn (tools, tool choice, template variables) with Model::prepare_chat, then
// generates from the text without letting the tokenizer add special tokens (the template writes
// them), as `ogai generate --chat` does; a forced tool call's grammar constrains the generation.
// Whole: a ChatResult (the reply parsed); stream=True: with tools a ChatStream of parsed deltas,
// without them the raw text pieces (a TextStream).
py::object chat(const ModelHandle& h, py::handle messages, bool add_generation_prompt, py::kwargs kwargs) {
  auto context = take_context(*h.model, kwargs);
  ChatOptions chat_options = chat_options_from(kwargs);
  chat_options.add_generation_prompt = add_generation_prompt;
  GenerateArgs args = generate_args("chat", kwargs);
  if (!args.add_special_tokens_set) args.options.add_special_tokens = false;
  std::vector<ChatMessage> list = chat_messages_from(messages);
  ChatPrompt prompt;
  {
    py::gil_scoped_release release;
    prompt = h.model->prepare_chat(list, chat_options);
  }
  if (!prompt.media.empty()) {
    if (!args.options.media.empty())
      throw Error(ErrorCode::kInvalidArgument, "images",
                  "give a chat's media as content parts or as images= / audio=, not both");
    args.options.media = prompt.media;
  }
  if (prompt.constraint) {
    if (args.options.response_format)
      throw Error(ErrorCode::kInvalidArgument, "response_format",
                  "cannot be combined with tool_choice 'required' or a named function (the call's grammar constrains the reply)");
    args.options.response_format = prompt.constraint;
  }
  if (args.stream && !chat_options.tools.empty()) {  // the reply parsed as it streams
    auto text = std::make_unique<TextStream>(h.model, Prompt{prompt.text}, std::move(args.options), std::move(context));
    return py::cast(std::make_unique<ChatStream>(std::move(text), std::move(prompt)));
  }
  if (args.stream) return generate_or_stream(h, prompt.text, std::move(args), std::move(context));
  GenerationResult result = run(*h.model, prompt.text, args.options, std::move(context));
  ChatReply reply = parse_chat_reply(prompt, result.text);
  return py::cast(ChatResult{std::move(result), std::move(reply)});
}

py::dict info(const ModelHandle& h) {
  const ModelInfo& i = h.model->info();
  py::dict d;
  d["package"] = i.package.string();
  d["vocab_size"] = i.vocab_size;
  d["context_length"] = i.context_length;
  d["eos_token_ids"] = i.eos_token_ids;
  d["has_chat_template"] = i.has_chat_template;
  d["execution_provider"] = i.execution_provider;
  return d;
}

std::vector<std::int32_t> encode(const TokenizerHandle& t, const std::string& text, bool add_special_tokens) {
  py::gil_scoped_release release;
  return t.model->tokenize(text, add_special_tokens);
}

py::str decode(const TokenizerHandle& t, py::handle ids, bool skip_special_tokens) {
  Prompt prompt = prompt_from("decode", ids);
  const auto* list = std::get_if<std::vector<std::int32_t>>(&prompt);
  if (list == nullptr) throw py::type_error("decode(): ids must be a list of int, not str");
  return to_str(t.model->detokenize(*list, skip_special_tokens));
}

void bind_tokenizer(py::module_& m) {
  py::class_<TokenizerHandle>(m, "Tokenizer", "The package's tokenizer (model.tokenizer).")
      .def("encode", &encode, py::arg("text"), py::arg("add_special_tokens") = true,
           "token ids of `text`; add_special_tokens lets the tokenizer add BOS etc.")
      .def("decode", &decode, py::arg("ids"), py::arg("skip_special_tokens") = false, "the text of token ids")
      .def_property_readonly("vocab_size", [](const TokenizerHandle& t) { return t.model->info().vocab_size; });
}

}  // namespace

void bind_model(py::module_& m) {
  bind_tokenizer(m);
  py::class_<ModelHandle, std::shared_ptr<ModelHandle>>(m, "Model", "A loaded, validated package.")
      .def(py::init(&load), py::arg("path"), py::arg("ep") = "cpu", py::arg("threads") = py::none(),
           py::arg("inputs") = std::vector<std::string>{}, py::arg("dtype") = py::none(), py::kw_only(),
           py::arg("max_media_parts") = py::none(), py::arg("max_media_bytes") = py::none(),
           py::arg("max_image_pixels") = py::none(), py::arg("max_decoded_bytes") = py::none(),
           py::arg("max_audio_seconds") = py::none(),
           "loads and validates the package at `path`; ep: 'cpu' or 'cuda'; threads: ONNX Runtime intra-op threads; "
           "inputs: 'NAME=JSON' tensors every request of a looped workflow package gets; dtype: for an Optimum / "
           "onnx-community folder, which graph variant runs ('fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', "
           "'bnb4', as ogai generate --dtype; default: the folder's config.json choice, else fp32); max_media_parts, "
           "max_media_bytes, max_image_pixels, max_decoded_bytes, max_audio_seconds: the media budgets of "
           "`ogai generate`'s flags of the same names (a request over one is refused naming it)")
      .def("generate", &generate, py::arg("prompt"),
           "generates from a text (or a list of token ids); returns a GenerationResult, or a TextStream with "
           "stream=True. Keywords: max_new_tokens, temperature, top_k, top_p, min_p, typical_p, repetition_penalty, "
           "frequency_penalty, presence_penalty, do_sample, seed, stop (or stop_strings), stop_token_ids, ignore_eos, "
           "truncate_prompt, add_special_tokens, response_format, logprobs, prompt_logprobs, speculative, draft_tokens, stream, "
           "context (an ogai.Context), images and audio (lists of bytes or paths, for the prompt's placeholders)")
      .def("stream", &stream, py::arg("prompt"), "generate(..., stream=True): a TextStream of text pieces")
      .def("chat", &chat, py::arg("messages"), py::arg("add_generation_prompt") = true,
           "renders [{'role', 'content'}, ...] through the chat template and generates the reply; returns a ChatResult "
           "(content, reasoning_content, tool_calls). Keywords: generate's, plus tools, tool_choice, parallel_tool_calls, "
           "chat_template_kwargs, tool_call_format")
      .def("render_chat", &render, py::arg("messages"), py::arg("add_generation_prompt") = true,
           "the prompt text the chat template makes of the messages")
      .def_property_readonly("tokenizer", [](const ModelHandle& h) { return TokenizerHandle{h.model}; })
      .def_property_readonly("info", &info, "package, vocab_size, context_length, eos_token_ids, ... as a dict");
}

}  // namespace ogai::python
