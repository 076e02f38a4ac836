#include "tokenizer/post_processor.h"

#include "base/error.h"

namespace ogai::tokenizer {
namespace {

// A list of ids to put before and after the sequence.
class Surround final : public PostProcessor {
 public:
  Surround(std::vector<std::int32_t> before, std::vector<std::int32_t> after)
      : before_(std::move(before)), after_(std::move(after)) {}
  void process(std::vector<std::int32_t>& ids) const override {
    ids.insert(ids.begin(), before_.begin(), before_.end());
    ids.insert(ids.end(), after_.begin(), after_.end());
  }
  std::size_t added_count() const override { return before_.size() + after_.size(); }

 private:
  std::vector<std::int32_t> before_, after_;
};

class SequenceProcessor final : public PostProcessor {
 public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  void process(std::vector<std::int32_t>& ids) const override {
    for (const auto& p : parts_) p->process(ids);
  }
  std::size_t added_count() const override {
    std::size_t n = 0;
    for (const auto& p : parts_) n += p->added_count();
    return n;
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

std::unique_ptr<PostProcessor> make_template(const JsonValue& v) {
  // special_tokens: {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}, ...}
  auto specials = v.find("special_tokens");
  std::vector<std::int32_t> before, after;
  bool seen_sequence = false;
  for (const JsonValue& item : v.at("single").items()) {
    if (auto seq = item.find("Sequence")) {
      std::string_view which = seq->at("id").as_string();
      if (which != "A") seq->at("id").fail_invalid("the single template may only use sequence A");
      seen_sequence = true;
      continue;
    }
    auto special = item.find("SpecialToken");
    if (!special) item.fail_invalid("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    std::string_view name = special->at("id").as_string();
    std::optional<JsonValue> entry = specials && !specials->is_null() ? specials->find(name) : std::nullopt;
    if (!entry) special->fail_invalid("special token '" + std::string(name) + "' is missing from special_tokens");
    for (const JsonValue& id : entry->at("ids").items())
      (seen_sequence ? after : before).push_back(static_cast<std::int32_t>(id.as_int()));
  }
  return std::make_unique<Surround>(std::move(before), std::move(after));
}

// ["token", id] -> id
std::int32_t pair_id(const JsonValue& v) {
  std::vector<JsonValue> pair = v.items();
  if (pair.size() != 2) v.fail_expected("a [token, id] pair");
  return static_cast<std::int32_t>(pair[1].as_int());
}

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const JsonValue& v) {
  if (v.is_null()) return nullptr;
  std::string type(v.at("type").as_string());
  if (type == "TemplateProcessing") return make_template(v);
  if (type == "BertProcessing" || type == "RobertaProcessing")
    return std::make_unique<Surround>(std::vector<std::int32_t>{pair_id(v.at("cls"))},
                                      std::vector<std::int32_t>{pair_id(v.at("sep"))});
  if (type == "ByteLevel") return std::make_unique<Surround>(std::vector<std::int32_t>{}, std::vector<std::int32_t>{});
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PostProcessor>> parts;
    for (const JsonValue& item : v.at("processors").items())
      if (auto p = make_post_processor(item)) parts.push_back(std::move(p));
    return std::make_unique<SequenceProcessor>(std::move(parts));
  }
  v.fail_unsupported("post-processor", type);
}

}  // namespace ogai::tokenizer
