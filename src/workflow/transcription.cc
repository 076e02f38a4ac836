#include "workflow/transcription.h"

#include "base/error.h"
#include "metadata/runnable.h"
#include "tokenizer/tokenizer.h"

namespace ogai::workflow {
namespace {

std::vector<std::string> strings_at(const nlohmann::json& v, const char* key) {
  std::vector<std::string> out;
  if (v.is_object() && v.contains(key) && v[key].is_array())
    for (const auto& item : v[key])
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

// The class id -> string table: inline tokens, or the package tokenizer's.
std::vector<std::string> vocabulary_tokens(const metadata::Package& package, const nlohmann::json& vocabulary,
                                           const std::string& where) {
  if (vocabulary.is_object() && vocabulary.value("source", "") == "inline") return strings_at(vocabulary, "tokens");
  const auto& file = package.files.text.tokenizer_json;
  if (!file)
    fail(ErrorCode::kUnsupported, where, "the vocabulary comes from the package tokenizer, and the package has no "
         "tokenizer.json (give the tokens inline: `vocabulary: {{source: inline, tokens: [...]}}`)");
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(*file);
  std::vector<std::string> tokens(tok.vocab_size());
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = tok.id_to_token(static_cast<std::int32_t>(i));
  return tokens;
}

CtcSpec make_spec(const metadata::Package& package, const std::string& name, const metadata::Profile::Decoding& d) {
  CtcSpec s;
  s.where = "profiles." + name + ".decoding";
  s.blank_removed = d.kind == "ctc" || d.blank_id.has_value();
  s.blank_id = d.blank_id.value_or(0);
  s.collapse_repeats = d.collapse_repeats;
  s.time_axis = d.time_axis;
  s.class_axis = d.class_axis;
  const nlohmann::json& v = d.vocabulary;
  s.tokens = vocabulary_tokens(package, v, s.where + ".vocabulary");
  if (v.is_object() && v.contains("size") && v["size"].is_number_integer()) s.classes = v["size"].get<std::int64_t>();
  if (v.is_object() && v.contains("word_delimiter") && v["word_delimiter"].is_string())
    s.word_delimiter = v["word_delimiter"].get<std::string>();
  for (std::string& t : strings_at(v, "ignored_tokens")) s.ignored_tokens.insert(std::move(t));
  return s;
}

const std::string* role_output(const metadata::Profile& p, const std::string& role) {
  for (const auto& [r, output] : p.outputs)
    if (r == role) return &output;
  return nullptr;
}

// The profile output's tensors, one per row group: the aggregate, else each published row.
std::vector<const ort::Tensor*> output_tensors(const RunResult& result, const std::string& output,
                                               const std::string& where) {
  if (const auto it = result.outputs.find(output); it != result.outputs.end()) return {&it->second};
  std::vector<const ort::Tensor*> out;
  for (const auto& [row, tensor] : result.rows(output)) out.push_back(tensor);
  if (out.empty()) fail(ErrorCode::kInvalidArgument, where, "the workflow did not emit output '{}'", output);
  return out;
}

}  // namespace

std::vector<TranscriptionProfile> transcription_profiles(const metadata::Package& package) {
  std::vector<TranscriptionProfile> out;
  for (const auto& [name, p] : package.document.profiles) {
    if (p.kind != "transcription" || !p.decoding) continue;
    std::string path;
    if (metadata::profile_not_run(name, p, path)) continue;  // ignorable (a required one was refused)
    const metadata::Profile::Decoding& d = *p.decoding;
    const std::string* logits = role_output(p, "logits");
    const std::string* lengths = d.lengths ? role_output(p, *d.lengths) : nullptr;
    out.push_back({name, *logits, lengths ? *lengths : "", CtcDecoder(make_spec(package, name, d))});
  }
  return out;
}

std::vector<ProfileTranscripts> transcribe(const std::vector<TranscriptionProfile>& profiles, const RunResult& result) {
  std::vector<ProfileTranscripts> out;
  for (const TranscriptionProfile& p : profiles) {
    const std::string where = "profiles." + p.name;
    const auto logits = output_tensors(result, p.logits_output, where + ".outputs.logits");
    std::vector<const ort::Tensor*> lengths(logits.size(), nullptr);
    if (!p.lengths_output.empty()) {
      lengths = output_tensors(result, p.lengths_output, where + ".decoding.lengths");
      if (lengths.size() != logits.size())
        fail(ErrorCode::kInvalidArgument, where + ".decoding.lengths", "output '{}' was published for {} rows, the "
             "logits '{}' for {}", p.lengths_output, lengths.size(), p.logits_output, logits.size());
    }
    ProfileTranscripts t{p.name, {}};
    for (std::size_t i = 0; i < logits.size(); ++i)
      for (RowTranscript& row : p.decoder.decode(*logits[i], lengths[i])) t.rows.push_back(std::move(row));
    out.push_back(std::move(t));
  }
  return out;
}

nlohmann::json transcripts_json(const std::vector<ProfileTranscripts>& transcripts) {
  nlohmann::json doc = nlohmann::json::object();
  for (const ProfileTranscripts& t : transcripts) {
    nlohmann::json rows = nlohmann::json::array();
    for (const RowTranscript& r : t.rows) rows.push_back({{"text", r.text}, {"ids", r.ids}});
    doc[t.profile] = std::move(rows);
  }
  return doc;
}

}  // namespace ogai::workflow
