#include "serve/audio/whisper_transcriber.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "serve/audio/whisper_audio.h"
#include "serve/audio/whisper_segments.h"
#include "serve/audio/whisper_tokens.h"
#include "serve/common/api_error.h"

namespace ogai::serve {
namespace {

constexpr std::int64_t kWhisperContext = 448;  // max_target_positions when the package gives none
constexpr std::size_t kSamplesPerStep = 320;   // 0.02 s at 16 kHz

std::string trimmed(const std::string& s) {
  const std::size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

GenerationOptions greedy_step(const GenerationOptions& base, std::vector<TokenId> allowed) {
  GenerationOptions o = base;
  o.sampling.temperature = 0.0f;
  o.max_new_tokens = 1;
  o.allowed_token_ids = std::move(allowed);
  return o;
}

// <|startofprev|> + the last context/2 - 1 tokens of " " + the trimmed prompt; empty without one.
std::vector<TokenId> previous_text(const Model& model, const WhisperTokens& t, const std::string& prompt) {
  const std::string text = trimmed(prompt);
  if (text.empty()) return {};
  if (!t.previous)
    throw unsupported("prompt", "prompt: this model's tokenizer has no <|startofprev|> token to carry previous text");
  std::vector<TokenId> ids = model.tokenize(" " + text, /*add_special_tokens=*/false);
  const std::int64_t context = model.info().context_length > 0 ? model.info().context_length : kWhisperContext;
  const auto keep = static_cast<std::size_t>(std::max<std::int64_t>(1, context / 2 - 1));
  if (ids.size() > keep) ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(keep));
  ids.insert(ids.begin(), *t.previous);
  return ids;
}

class Transcriber {
 public:
  Transcriber(const Model& model, const WhisperJob& job, const WhisperDecode& decode)
      : model_(model), job_(job), decode_(decode), tokens_(whisper_tokens(model)),
        audio_(job.audio, job.limits) {
    if (job.timestamps && !tokens_.no_timestamps)
      throw unsupported("response_format", "response_format: segments need timestamp tokens; this model's tokenizer "
                                           "has no <|notimestamps|>; ask for json or text");
  }

  Transcript run() {
    Transcript t;
    t.task = job_.state->translate ? "translate" : "transcribe";
    t.duration = audio_.seconds();
    t.temperature = job_.options.sampling.temperature.value_or(0.0f);
    const TokenId language = choose_language();
    t.language = job_.state->translate ? "english" : tokens_.code_of(language);
    std::vector<TokenId> context = previous_text(model_, tokens_, job_.state->prompt);
    for (std::size_t seek = 0; seek < audio_.samples();) {
      std::vector<TokenId> prompt = std::exchange(context, {});
      for (TokenId id : task(language)) prompt.push_back(id);
      seek += window(prompt, seek, t);
    }
    for (const TranscriptSegment& s : t.segments) t.text += s.text.empty() ? "" : (t.text.empty() ? "" : " ") + s.text;
    return t;
  }

 private:
  TokenId choose_language() {
    if (!job_.state->language.empty()) return tokens_.language(job_.state->language);
    if (tokens_.languages.empty())
      throw invalid_request("language", "language: required; this model's tokenizer has no language tokens to detect");
    GenerationOptions o = greedy_step(job_.options, tokens_.languages);
    o.media = {audio_.window(0)};
    const GenerationResult r = decode_({tokens_.start}, std::move(o));
    if (r.ids.empty() || tokens_.code_of(r.ids[0]).empty())
      throw internal_error("language detection did not produce a language token");
    return r.ids[0];
  }

  std::vector<TokenId> task(TokenId language) const {
    std::vector<TokenId> ids{tokens_.start, language, job_.state->translate ? tokens_.translate : tokens_.transcribe};
    if (!job_.timestamps && tokens_.no_timestamps) ids.push_back(*tokens_.no_timestamps);
    return ids;
  }

  // Decodes the window at `seek`, appends its segments; returns the samples to advance.
  std::size_t window(std::vector<TokenId> prompt, std::size_t seek, Transcript& t) {
    GenerationOptions o = job_.options;
    o.media = {audio_.window(seek)};
    if (job_.timestamps) o.timestamp_rules = TimestampRules{tokens_.eos, *tokens_.no_timestamps, 50};
    const GenerationResult r = decode_(std::move(prompt), std::move(o));
    const double length = audio_.window_seconds(seek), offset = static_cast<double>(seek) / WhisperAudio::kRate;
    const TokenId first = job_.timestamps ? *tokens_.no_timestamps + 1 : std::numeric_limits<TokenId>::max();
    WindowSplit split = split_window(r.ids, first, tokens_.eos, length);
    for (TimedTokens& s : split.segments) {
      // Without timestamps the window is one segment: the engine's own text (as ogai generate's).
      const std::string text =
          job_.timestamps ? trimmed(model_.detokenize(s.text, /*skip_special_tokens=*/true)) : trimmed(r.text);
      t.segments.push_back({offset + s.start, offset + std::min(s.end, length), text, std::move(s.ids), 0});
    }
    const std::size_t whole = static_cast<std::size_t>(length * WhisperAudio::kRate + 0.5);
    return split.advance ? std::min(whole, static_cast<std::size_t>(*split.advance) * kSamplesPerStep) : whole;
  }

  const Model& model_;
  const WhisperJob& job_;
  const WhisperDecode& decode_;
  WhisperTokens tokens_;
  WhisperAudio audio_;
};

}  // namespace

Transcript transcribe_whisper(const Model& model, const WhisperJob& job, const WhisperDecode& decode) {
  return Transcriber(model, job, decode).run();
}

}  // namespace ogai::serve
