#include "serve/audio/transcription_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "serve/audio/multipart.h"
#include "serve/common/request_fields.h"

namespace ogai::serve {
namespace {

constexpr std::string_view kKnownFields[] = {"file", "model", "language", "prompt", "temperature", "response_format",
                                             "timestamp_granularities[]", "timestamp_granularities", "stream",
                                             "chunking_strategy", "include[]"};

// The fields as strings; the file part apart.
struct Form {
  const MultipartPart* file = nullptr;
  std::vector<std::pair<std::string, std::string>> fields;
  const std::string* get(std::string_view name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return &v;
    return nullptr;
  }
};

Form read_form(const std::vector<MultipartPart>& parts) {
  Form form;
  for (const MultipartPart& p : parts) {
    if (p.name == "file") {
      if (form.file != nullptr) throw invalid_request("file", "file: sent more than once; send one audio file");
      form.file = &p;
    } else {
      form.fields.emplace_back(p.name, std::string(p.body));
    }
  }
  if (form.file == nullptr) throw invalid_request("file", "file: required (the audio file, as a multipart file part)");
  return form;
}

// The file's MIME type: its Content-Type when it names audio, else from its file name.
std::string file_mime(const MultipartPart& file) {
  if (file.content_type.starts_with("audio/")) return file.content_type;
  const std::size_t dot = file.filename.rfind('.');
  const std::string from_name = dot == std::string::npos ? "" : audio_mime(file.filename.substr(dot + 1));
  if (!from_name.empty()) return from_name;
  throw invalid_request("file", "file: " + quote_value(file.filename) + " (" +
                                    quote_value(file.content_type.empty() ? "no Content-Type" : file.content_type) +
                                    ") is not an audio file this server takes (wav, mp3, flac, ogg)");
}

TranscriptFormat read_format(const Form& form) {
  const std::string* v = form.get("response_format");
  if (v == nullptr || v->empty() || *v == "json") return TranscriptFormat::kJson;
  if (*v == "text") return TranscriptFormat::kText;
  if (*v == "srt") return TranscriptFormat::kSrt;
  if (*v == "vtt") return TranscriptFormat::kVtt;
  if (*v == "verbose_json") return TranscriptFormat::kVerboseJson;
  throw invalid_request("response_format", "response_format: " + quote_value(*v) +
                                               " is not one of json, text, srt, vtt, verbose_json");
}

void read_temperature(const Form& form, SamplingOptions& sampling) {
  const std::string* v = form.get("temperature");
  if (v == nullptr || v->empty()) return;
  double t = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), t);
  if (ec != std::errc() || end != v->data() + v->size() || !(t >= 0 && t <= 1))
    throw invalid_request("temperature", "temperature: " + quote_value(*v) + " is not a number from 0 to 1");
  sampling.temperature = static_cast<float>(t);
}

void refuse_features(const Form& form) {
  if (const std::string* s = form.get("stream"); s && *s == "true")
    throw unsupported("stream", "stream: transcriptions are answered whole here; leave stream out");
  for (const char* name : {"timestamp_granularities[]", "timestamp_granularities"})
    if (const std::string* g = form.get(name); g && *g != "segment")
      throw unsupported(name, std::string(name) + ": only \"segment\" timestamps are given, not " + quote_value(*g));
}

// The instruction the model reads beside the audio.
std::string instruction(bool translate, const std::string& language, const std::string* prompt) {
  std::string text = translate ? "Translate this audio into English."
                               : language.empty() ? "Transcribe this audio."
                                                  : "Transcribe this audio (language: " + language + ").";
  if (prompt != nullptr && !prompt->empty()) text += " Context: " + *prompt;
  return text;
}

std::uint32_t le32(std::string_view s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}

}  // namespace

double wav_duration(std::string_view b) {
  if (b.size() < 12 || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WAVE") return 0;
  std::uint32_t byte_rate = 0;
  for (std::size_t at = 12; at + 8 <= b.size();) {  // chunks: id, size, data (padded to even)
    const std::string_view id = b.substr(at, 4);
    const std::uint64_t size = le32(b, at + 4);
    if (id == "fmt " && size >= 16 && at + 8 + 16 <= b.size()) byte_rate = le32(b, at + 8 + 8);
    if (id == "data") {
      const std::uint64_t bytes = std::min<std::uint64_t>(size, b.size() - at - 8);
      return byte_rate == 0 ? 0 : static_cast<double>(bytes) / byte_rate;
    }
    at += 8 + size + (size & 1);
  }
  return 0;
}

ApiRequest parse_transcription_request(std::string_view content_type, std::string_view body, bool translate,
                                       const JsonLimits& limits) {
  const std::vector<MultipartPart> parts = parse_multipart(body, multipart_boundary(content_type));
  const Form form = read_form(parts);
  ApiRequest r;
  r.endpoint = Endpoint::kChat;
  const std::string* model = form.get("model");
  if (model == nullptr || model->empty()) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  auto state = std::make_shared<TranscriptionState>();
  state->translate = translate;
  state->format = read_format(form);
  if (const std::string* language = form.get("language")) {
    if (translate) throw invalid_request("language", "language: translations are always into English; leave it out");
    state->language = *language;
  }
  if (const std::string* prompt = form.get("prompt")) {
    state->has_prompt = !prompt->empty();
    state->prompt = *prompt;
  }
  read_temperature(form, r.options.sampling);
  refuse_features(form);
  MediaReader media(limits.media);
  MediaInput audio = media.bytes(MediaInput::Kind::kAudio, std::string(form.file->body), file_mime(*form.file), "file");
  state->duration = wav_duration(audio.bytes);
  Conversation c;
  c.turns.push_back({"user", {Part::media_part(std::move(audio)),
                              Part::text_part(instruction(translate, state->language, form.get("prompt")), "prompt")},
                     "", "file"});
  set_conversation(r, c);
  for (const auto& [name, value] : form.fields)
    if (std::find(std::begin(kKnownFields), std::end(kKnownFields), name) == std::end(kKnownFields))
      r.unknown_fields.push_back(name);
  r.transcription = std::move(state);
  return r;
}

}  // namespace ogai::serve
