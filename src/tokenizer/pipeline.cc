#include "tokenizer/pipeline.h"

#include "base/error.h"
#include "tokenizer/cancel.h"

namespace ogai::tokenizer {
namespace {

// Runs the byte-level plan on one text piece: split, then byte-level BPE on each part.
void run_byte_level(const ByteLevelPlan& plan, const Bpe& bpe, std::string_view s, std::vector<std::int32_t>& ids) {
  if (!plan.split) {
    bpe.tokenize_bytes(s, ids);
    return;
  }
  thread_local Matches m;
  m.clear();
  if (plan.scanner) plan.scanner(s, m);
  else m = plan.regex->find_all(s);
  std::size_t prev = 0;
  for (auto [a, b] : m) {
    if (a > prev) bpe.tokenize_bytes(s.substr(prev, a - prev), ids);
    if (b > a) bpe.tokenize_bytes(s.substr(a, b - a), ids);
    prev = b;
  }
  if (prev < s.size()) bpe.tokenize_bytes(s.substr(prev), ids);
  release_if_large(m);
}

Truncation read_truncation(const JsonValue& v) {
  Truncation t;
  t.max_length = static_cast<std::size_t>(v.at("max_length").as_int());
  t.left = v.string_or("direction", "Right") == "Left";
  return t;
}

Padding read_padding(const JsonValue& v) {
  Padding p;
  if (auto s = v.find("strategy"); s && s->is_object()) p.fixed = static_cast<std::size_t>(s->at("Fixed").as_int());
  else if (s && s->as_string() != "BatchLongest") s->fail_unsupported("padding strategy", s->as_string());
  p.multiple_of = static_cast<std::size_t>(v.int_or("pad_to_multiple_of", 0));
  p.pad_id = static_cast<std::int32_t>(v.int_or("pad_id", 0));
  p.left = v.string_or("direction", "Right") == "Left";
  return p;
}

std::optional<JsonValue> optional_member(const JsonValue& root, std::string_view key) {
  auto v = root.find(key);
  if (v && v->is_null()) return std::nullopt;
  return v;
}

}  // namespace

void Pipeline::encode_text(std::string_view text, std::vector<std::int32_t>& ids) const {
  const Bpe* bpe = byte_level ? static_cast<const Bpe*>(model.get()) : nullptr;
  if (bpe && !normalizer && !added.has_raw() && !added.has_normalized()) {
    run_byte_level(*byte_level, *bpe, text, ids);
    return;
  }
  Piece input;
  input.text = std::string(text);
  if (track_origins) {  // each byte gets the offset of the character it belongs to
    input.origin.resize(text.size());
    for (std::size_t i = 0, start = 0; i < text.size(); ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) start = i;
      input.origin[i] = static_cast<std::uint32_t>(start);
    }
  }
  std::vector<Piece> raw, pieces;
  added.split(std::move(input), false, raw);
  for (Piece& p : raw) {
    if (p.token >= 0) {
      pieces.push_back(std::move(p));
      continue;
    }
    if (normalizer) normalizer->normalize(p);
    added.split(std::move(p), true, pieces);
  }
  if (bpe) {
    for (const Piece& p : pieces) {
      if (p.token >= 0) ids.push_back(p.token);
      else run_byte_level(*byte_level, *bpe, p.text, ids);
    }
    return;
  }
  if (pre_tokenizer) pre_tokenizer->pre_tokenize(pieces);
  for (const Piece& p : pieces) {
    check_cancelled();
    if (p.token >= 0) ids.push_back(p.token);
    else if (!p.text.empty()) model->tokenize(p.text, ids);
  }
}

void Pipeline::finish(std::vector<std::int32_t>& ids, bool add_special_tokens) const {
  if (truncation) {
    std::size_t added_n = add_special_tokens && post_processor ? post_processor->added_count() : 0;
    std::size_t keep = truncation->max_length > added_n ? truncation->max_length - added_n : 0;
    if (ids.size() > keep) {
      if (truncation->left) ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(keep));
      else ids.resize(keep);
    }
  }
  if (add_special_tokens && post_processor) post_processor->process(ids);
}

void Pipeline::pad(std::vector<std::int32_t>& ids, std::size_t target) const {
  if (!padding) return;
  if (padding->fixed) target = *padding->fixed;
  if (padding->multiple_of > 0 && target % padding->multiple_of != 0)
    target += padding->multiple_of - target % padding->multiple_of;
  if (ids.size() >= target) return;
  std::size_t n = target - ids.size();
  if (padding->left) ids.insert(ids.begin(), n, padding->pad_id);
  else ids.insert(ids.end(), n, padding->pad_id);
}

std::optional<std::string_view> Pipeline::token_text(std::int32_t id) const {
  if (const AddedToken* t = added.by_id(id)) return std::string_view(t->decoded);
  return model->vocab().token(id);
}

std::string Pipeline::decode_tokens(std::vector<std::string> tokens, ChainState& state) const {
  std::string out;
  if (!decoder) {
    for (std::size_t i = 0; i < tokens.size(); ++i) out += (i || state.index_offset ? " " : "") + tokens[i];
    return out;
  }
  decoder->decode_chain(tokens, state);
  for (const std::string& t : tokens) out += t;
  return out;
}

std::shared_ptr<const Pipeline> load_pipeline(const JsonValue& root) {
  if (!root.is_object()) root.fail_expected("a tokenizer.json object");
  auto p = std::make_shared<Pipeline>();
  p->model = make_model(root.at("model"));
  if (auto v = optional_member(root, "normalizer")) p->normalizer = make_normalizer(*v);
  if (auto v = optional_member(root, "pre_tokenizer")) {
    p->pre_tokenizer = make_pre_tokenizer(*v);
    auto* bpe = dynamic_cast<const Bpe*>(p->model.get());
    if (bpe && bpe->supports_byte_level()) p->byte_level = byte_level_plan(*v);
  }
  if (auto v = optional_member(root, "post_processor")) p->post_processor = make_post_processor(*v);
  if (auto v = optional_member(root, "decoder")) p->decoder = make_decoder(*v);
  if (auto v = optional_member(root, "truncation")) p->truncation = read_truncation(*v);
  if (auto v = optional_member(root, "padding")) p->padding = read_padding(*v);
  p->added.load(optional_member(root, "added_tokens"), *p->model, p->normalizer.get());
  p->track_origins = p->pre_tokenizer && p->pre_tokenizer->needs_origins();
  p->max_id = std::max(p->model->vocab().max_id(), p->added.max_id());
  return p;
}

}  // namespace ogai::tokenizer
