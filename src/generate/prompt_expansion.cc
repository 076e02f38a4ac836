#include "generate/prompt_expansion.h"

#include "base/error.h"

namespace ogai::generate {
namespace {

struct Family {
  const char* name;
  const char *image, *image_soft, *image_begin, *image_end;
  const char *audio, *audio_soft, *audio_begin, *audio_end;
};

constexpr Family kFamilies[] = {
    {"gemma4", "<|image|>", "<|image|>", "<|image>", "<image|>", "<|audio|>", "<|audio|>", "<|audio>", "<audio|>"},
    {"gemma3", "<start_of_image>", "<image_soft_token>", "<start_of_image>", "<end_of_image>", "<start_of_audio>",
     "<audio_soft_token>", "<start_of_audio>", "<end_of_audio>"},
    {"qwen", "<|image_pad|>", "<|image_pad|>", "<|vision_start|>", "<|vision_end|>", "<|AUDIO|>", "<|AUDIO|>",
     "<|audio_bos|>", "<|audio_eos|>"},
};

std::optional<PromptExpander::Tokens> find_tokens(const tokenizer::Tokenizer& tok, const char* placeholder,
                                                  const char* soft, const char* begin, const char* end) {
  auto p = tok.token_to_id(placeholder);
  auto s = tok.token_to_id(soft);
  if (!p || !s) return std::nullopt;
  PromptExpander::Tokens t;
  t.placeholder_text = placeholder;
  t.placeholder = *p;
  t.soft = *s;
  t.begin = tok.token_to_id(begin);
  t.end = tok.token_to_id(end);
  return t;
}

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

PromptExpander PromptExpander::for_vocabulary(const tokenizer::Tokenizer* tok) {
  PromptExpander e;
  if (tok == nullptr) return e;
  for (const Family& f : kFamilies) {
    e.image_ = find_tokens(*tok, f.image, f.image_soft, f.image_begin, f.image_end);
    e.audio_ = find_tokens(*tok, f.audio, f.audio_soft, f.audio_begin, f.audio_end);
    if (e.image_ || e.audio_) {
      e.family_ = f.name;
      return e;
    }
  }
  return e;
}

PromptExpander PromptExpander::numbered_images() {
  PromptExpander e;
  e.family_ = "phi3v";
  e.numbered_ = true;
  return e;
}

std::vector<TokenId> PromptExpander::expand_numbered(std::span<const TokenId> prompt, PromptMedia& media) const {
  std::size_t images = 0, tags = 0;
  for (const auto& item : media.items) {
    if (item.audio)
      fail(ErrorCode::kInvalidArgument, "media", "an audio clip given, but Phi-3-V's prompts take images only");
    ++images;
  }
  for (TokenId id : prompt) {
    if (id >= 0) continue;
    ++tags;
    if (-static_cast<std::int64_t>(id) != static_cast<std::int64_t>(tags))
      fail(ErrorCode::kInvalidArgument, "media",
           "image tag {} of the prompt is <|image_{}|>; Phi-3-V's tags number the images <|image_1|>, <|image_2|>, "
           "... in prompt order, each once (its embedding places the images at the tags in order)",
           tags, -static_cast<std::int64_t>(id));
  }
  if (tags != images)
    fail(ErrorCode::kInvalidArgument, "media",
         "the prompt has {} but {} given; each image needs exactly one tag <|image_N|>, in order",
         plural(tags, "image tag"), plural(images, "image"));
  std::vector<TokenId> out;
  out.reserve(prompt.size());
  media.marks.clear();
  std::size_t next = 0;
  for (TokenId id : prompt) {
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    EncodedMedia& item = media.items[next++];
    media.marks.push_back({out.size(), static_cast<std::size_t>(item.rows), item.digest, item.features, item.port});
    out.insert(out.end(), static_cast<std::size_t>(item.rows), id);
  }
  return out;
}

std::vector<TokenId> PromptExpander::expand(std::span<const TokenId> prompt, PromptMedia& media) const {
  if (numbered_) return expand_numbered(prompt, media);
  for (std::size_t i = 0; i < prompt.size(); ++i)  // negative ids are Phi-3-V's image tags only
    if (prompt[i] < 0)
      fail(ErrorCode::kInvalidArgument, "prompt_ids", "id {} at position {} is negative; only Phi-3-V packages take "
           "negative ids (their <|image_N|> tags)", prompt[i], i);
  // Each kind's items, in request order.
  std::vector<std::size_t> queue[2];
  for (std::size_t i = 0; i < media.items.size(); ++i) queue[media.items[i].audio ? 1 : 0].push_back(i);
  std::size_t found[2] = {0, 0};
  for (TokenId id : prompt)
    for (int k = 0; k < 2; ++k)
      if (const auto& t = tokens(k == 1); t && id == t->placeholder) ++found[k];
  for (int k = 0; k < 2; ++k) {
    const char* what = k == 1 ? "audio clip" : "image";
    const auto& t = tokens(k == 1);
    if (!t && !queue[k].empty())
      fail(ErrorCode::kInvalidArgument, "media",
           "{} given, but the package's tokenizer has no {} placeholder token ogai expands (family {})",
           plural(queue[k].size(), what), k == 1 ? "audio" : "image", family_.empty() ? "none" : family_);
    if (t && found[k] != queue[k].size())
      fail(ErrorCode::kInvalidArgument, "media",
           "the prompt has {} '{}' but {} given; each {} needs exactly one placeholder, in order",
           plural(found[k], "placeholder"), t->placeholder_text, plural(queue[k].size(), what), what);
  }
  PromptMedia ordered;
  std::vector<TokenId> out;
  out.reserve(prompt.size());
  std::size_t next[2] = {0, 0};
  for (std::size_t i = 0; i < prompt.size(); ++i) {
    int kind = -1;
    for (int k = 0; k < 2; ++k)
      if (const auto& t = tokens(k == 1); t && prompt[i] == t->placeholder) kind = k;
    if (kind < 0) {
      out.push_back(prompt[i]);
      continue;
    }
    const Tokens& t = *tokens(kind == 1);
    EncodedMedia item = media.items[queue[kind][next[kind]++]];
    if (t.begin && (out.empty() || out.back() != *t.begin)) out.push_back(*t.begin);
    MediaMark mark{out.size(), static_cast<std::size_t>(item.rows), item.digest, item.features, item.port};
    out.insert(out.end(), static_cast<std::size_t>(item.rows), t.soft);
    if (t.end && (i + 1 >= prompt.size() || prompt[i + 1] != *t.end)) out.push_back(*t.end);
    ordered.items.push_back(std::move(item));
    ordered.marks.push_back(std::move(mark));
  }
  media = std::move(ordered);
  return out;
}

}  // namespace ogai::generate
