// The one request model (serve/common/conversation.h): every surface's translator reads its body
// once into the same conversation (chat completions, Responses, Anthropic Messages, audio forms),
// media parts included (serve/common/media_input.h) with their bounds; the multipart parser and
// the transcript renderers of serve/audio/.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/anthropic/messages_request.h"
#include "serve/audio/multipart.h"
#include "serve/audio/transcript_render.h"
#include "serve/audio/transcription_request.h"
#include "serve/common/api_request.h"
#include "serve/common/base64.h"
#include "serve/common/prompt.h"
#include "serve/ops/metrics.h"
#include "serve/responses/responses_api.h"

namespace ogai::serve {
namespace {

using nlohmann::json;

const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + "not really an image";
const std::string kWav = "RIFF....WAVEfmt ";

std::string data_url(const std::string& mime, const std::string& bytes) {
  return "data:" + mime + ";base64," + encode_base64(bytes);
}

template <class F>
ApiError error_of(F f) {
  try {
    f();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "no ApiError";
  return {};
}

// The lowered messages as comparable JSON (roles, text, parts with their bytes and MIME).
json shape(const std::vector<ChatMessage>& messages) {
  json out = json::array();
  for (const ChatMessage& m : messages) {
    json parts = json::array();
    for (const ContentPart& p : m.parts)
      parts.push_back({static_cast<int>(p.kind), p.text, encode_base64(p.media.bytes), p.media.mime});
    json calls = json::array();
    for (const ToolCall& c : m.tool_calls) calls.push_back({c.id, c.name, c.arguments});
    out.push_back({m.role, m.content, parts, calls, m.tool_call_id, m.reasoning_content});
  }
  return out;
}

TEST(RequestModel, ChatResponsesAndMessagesBodiesMeaningTheSameGiveTheSameConversation) {
  const std::string url = data_url("image/png", kPng);
  const json chat = {{"model", "m"},
                     {"messages",
                      {{{"role", "system"}, {"content", "Be brief."}},
                       {{"role", "user"},
                        {"content", {{{"type", "text"}, {"text", "What is this?"}},
                                     {{"type", "image_url"}, {"image_url", {{"url", url}}}}}}},
                       {{"role", "assistant"},
                        {"content", "Let me look."},
                        {"tool_calls", {{{"id", "c1"}, {"type", "function"},
                                         {"function", {{"name", "f"}, {"arguments", "{\"x\":1}"}}}}}}},
                       {{"role", "tool"}, {"tool_call_id", "c1"}, {"content", "42"}}}}};
  const json responses = {
      {"model", "m"},
      {"instructions", "Be brief."},
      {"input",
       {{{"role", "user"},
         {"content", {{{"type", "input_text"}, {"text", "What is this?"}}, {{"type", "input_image"}, {"image_url", url}}}}},
        {{"role", "assistant"}, {"content", "Let me look."}},
        {{"type", "function_call"}, {"call_id", "c1"}, {"name", "f"}, {"arguments", "{\"x\":1}"}},
        {{"type", "function_call_output"}, {"call_id", "c1"}, {"output", "42"}}}}};
  const json messages = {
      {"model", "m"},
      {"max_tokens", 8},
      {"system", "Be brief."},
      {"messages",
       {{{"role", "user"},
         {"content", {{{"type", "text"}, {"text", "What is this?"}},
                      {{"type", "image"},
                       {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", encode_base64(kPng)}}}}}}},
        {{"role", "assistant"},
         {"content", {{{"type", "text"}, {"text", "Let me look."}},
                      {{"type", "tool_use"}, {"id", "c1"}, {"name", "f"}, {"input", {{"x", 1}}}}}}},
        {{"role", "user"}, {"content", {{{"type", "tool_result"}, {"tool_use_id", "c1"}, {"content", "42"}}}}}}}};
  const ApiRequest a = parse_chat_request(chat.dump());
  const ApiRequest b = parse_responses_request(responses.dump()).request;
  const ApiRequest c = parse_messages_request(messages.dump(), MessagesRoute::kCreate);
  ASSERT_EQ(a.messages.size(), 4u);
  ASSERT_EQ(a.messages[1].parts.size(), 2u);
  EXPECT_EQ(a.messages[1].parts[1].kind, ContentPart::Kind::kImage);
  EXPECT_EQ(a.messages[1].parts[1].media.bytes, kPng);
  EXPECT_EQ(a.messages[1].parts[1].media.origin, "messages[1].content[1]");
  EXPECT_EQ(b.messages[1].parts[1].media.origin, "input[0].content[1]");
  EXPECT_EQ(c.messages[1].parts[1].media.origin, "messages[0].content[1]");
  EXPECT_EQ(shape(a.messages), shape(b.messages));
  EXPECT_EQ(shape(a.messages), shape(c.messages));
  EXPECT_EQ(a.media_images, 1u);
  EXPECT_EQ(b.media_images, 1u);
  EXPECT_EQ(c.media_images, 1u);
}

TEST(RequestModel, ChatInputAudioAndTextOnlyMessagesKeepTheirContent) {
  const json body = {{"model", "m"},
                     {"messages",
                      {{{"role", "user"},
                        {"content", {{{"type", "input_audio"}, {"input_audio", {{"data", encode_base64(kWav)}, {"format", "wav"}}}},
                                     {{"type", "text"}, {"text", "Transcribe"}}}}},
                       {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "a"}}, {{"type", "text"}, {"text", "b"}}}}}}}};
  const ApiRequest r = parse_chat_request(body.dump());
  ASSERT_EQ(r.messages[0].parts.size(), 2u);
  EXPECT_EQ(r.messages[0].parts[0].kind, ContentPart::Kind::kAudio);
  EXPECT_EQ(r.messages[0].parts[0].media.mime, "audio/wav");
  EXPECT_EQ(r.messages[0].parts[1].text, "Transcribe");
  EXPECT_TRUE(r.messages[1].parts.empty());
  EXPECT_EQ(r.messages[1].content, "a\nb");
  EXPECT_EQ(r.media_audio, 1u);
}

json image_body(const json& part) {
  return {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", {part}}}}}};
}
json image_part(const std::string& url) { return {{"type", "image_url"}, {"image_url", {{"url", url}}}}; }

TEST(RequestModel, HostileMediaIsA400NamingThePart) {
  const std::string at = "messages[0].content[0].image_url.url";
  struct Case {
    json body;
    std::string param, needle;
  } cases[] = {
      {image_body(image_part("data:image/png;base64,%%%not-base64")), at, "not valid base64"},
      {image_body(image_part("data:text/plain;base64," + encode_base64("hi"))), at, "is not an image type"},
      {image_body(image_part("https://example.com/cat.png")), at, "does not fetch"},
      {image_body(image_part("data:image/png,abc")), at, "must be base64"},
      {image_body(image_part("data:image/png;base64,")), at, "is empty"},
      {image_body(image_part("file:///etc/passwd")), at, "expected a data URL"},
      {image_body({{"type", "image_url"}}), "messages[0].content[0].image_url", "required"},
      {image_body({{"type", "video_url"}}), "messages[0].content[0].type", "video_url"},
      {image_body({{"type", "input_audio"}, {"input_audio", {{"data", encode_base64(kWav)}, {"format", "aiff"}}}}),
       "messages[0].content[0].input_audio.format", "not one of wav"},
  };
  for (const Case& c : cases) {
    ApiError e = error_of([&] { parse_chat_request(c.body.dump()); });
    EXPECT_EQ(e.status, 400) << c.body.dump().substr(0, 200);
    EXPECT_EQ(e.param, c.param) << e.message;
    EXPECT_NE(e.message.find(c.needle), std::string::npos) << e.message;
  }
  json assistant = {{"model", "m"}, {"messages", {{{"role", "assistant"}, {"content", {image_part(data_url("image/png", kPng))}}}}}};
  EXPECT_EQ(error_of([&] { parse_chat_request(assistant.dump()); }).param, "messages[0].content[0].type");
}

TEST(RequestModel, MediaCountAndSizeAreBoundedBeforeDecoding) {
  json content = json::array();
  for (int i = 0; i < 1000; ++i) content.push_back(image_part(data_url("image/png", kPng)));
  json body = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", content}}}}};
  ApiError many = error_of([&] { parse_chat_request(body.dump()); });
  EXPECT_EQ(many.status, 400);
  EXPECT_EQ(many.param, "messages[0].content[32].image_url.url");
  EXPECT_NE(many.message.find("--max-media-parts"), std::string::npos) << many.message;
  JsonLimits small;
  small.media.max_bytes = 1000;
  const std::string huge = "data:image/png;base64," + std::string(4000, 'A');
  ApiError big = error_of([&] { parse_chat_request(image_body(image_part(huge)).dump(), small); });
  EXPECT_NE(big.message.find("--max-media-bytes"), std::string::npos) << big.message;
  EXPECT_NO_THROW(parse_chat_request(image_body(image_part("data:image/png;base64," + std::string(1332, 'A'))).dump(), small));
}

TEST(RequestModel, ResponsesAndMessagesMediaRefusals) {
  json responses = {{"model", "m"},
                    {"input", {{{"role", "user"}, {"content", {{{"type", "input_file"}, {"file_data", data_url("application/pdf", "x")}}}}}}}};
  EXPECT_EQ(error_of([&] { parse_responses_request(responses.dump()); }).param, "input[0].content[0].file_data");
  responses["input"][0]["content"][0] = {{"type", "input_file"}, {"file_data", data_url("audio/wav", kWav)}};
  const ApiRequest audio = parse_responses_request(responses.dump()).request;
  EXPECT_EQ(audio.messages[0].parts.at(0).kind, ContentPart::Kind::kAudio);
  json messages = {{"model", "m"}, {"max_tokens", 4},
                   {"messages", {{{"role", "user"}, {"content", {{{"type", "image"},
                                                                 {"source", {{"type", "base64"}, {"media_type", "image/tiff"}, {"data", "AAAA"}}}}}}}}}};
  EXPECT_EQ(error_of([&] { parse_messages_request(messages.dump(), MessagesRoute::kCreate); }).param,
            "messages[0].content[0].source.data");
  messages["messages"][0]["content"][0]["source"] = {{"type", "url"}, {"url", "https://x/y.png"}};
  const ApiError url = error_of([&] { parse_messages_request(messages.dump(), MessagesRoute::kCreate); });
  EXPECT_EQ(url.param, "messages[0].content[0].source.url");  // not fetched without --allow-media-urls
  EXPECT_NE(url.message.find("--allow-media-urls"), std::string::npos) << url.message;
}

TEST(RequestModel, AnEngineRefusalOfAMediaPartNamesWhereTheClientSentIt) {
  const ApiRequest r = parse_chat_request(
      image_body(image_part(data_url("image/png", kPng))).dump());
  const Error refused(ErrorCode::kUnsupported, "messages[0].parts[0]", "images are not executed for it");
  auto e = media_refusal(refused, r);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status, 400);
  EXPECT_EQ(e->param, "messages[0].content[0]");
  EXPECT_NE(e->message.find("takes no image input"), std::string::npos) << e->message;
  EXPECT_FALSE(media_refusal(Error(ErrorCode::kUnsupported, "tools[0]", "x"), r).has_value());
  EXPECT_FALSE(media_refusal(Error(ErrorCode::kInvalidArgument, "messages[0].parts[0]", "x"), r).has_value());
}

TEST(Base64, DecodesStrictlyAndRoundTrips) {
  for (const std::string& s : {std::string(""), std::string("a"), std::string("ab"), std::string("abc"), kPng})
    EXPECT_EQ(decode_base64(encode_base64(s)).value(), s);
  EXPECT_EQ(decode_base64("YWI").value(), "ab");  // padding optional
  std::size_t at = 0;
  EXPECT_FALSE(decode_base64("YW I=", &at).has_value());
  EXPECT_EQ(at, 2u);
  EXPECT_FALSE(decode_base64("Y").has_value());
  EXPECT_FALSE(decode_base64("YQ=").has_value());
  EXPECT_FALSE(decode_base64("YQ==YQ==").has_value());
  EXPECT_FALSE(decode_base64("YQ-_").has_value());
}

const std::string kBoundary = "XyZ";

std::string form(const std::vector<std::array<std::string, 4>>& parts) {  // name, filename, type, body
  std::string out = "preamble\r\n";
  for (const auto& [name, filename, type, body] : parts) {
    out += "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"";
    if (!filename.empty()) out += "; filename=\"" + filename + "\"";
    out += "\r\n";
    if (!type.empty()) out += "Content-Type: " + type + "\r\n";
    out += "\r\n" + body + "\r\n";
  }
  return out + "--" + kBoundary + "--\r\n";
}

TEST(Multipart, ReadsFieldsAndFiles) {
  const std::string body = form({{"model", "", "", "m"}, {"file", "a b.wav", "audio/wav", "RIFF\r\n--X\r\n"}});
  auto parts = parse_multipart(body, kBoundary);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "model");
  EXPECT_EQ(parts[0].body, "m");
  EXPECT_EQ(parts[1].filename, "a b.wav");
  EXPECT_EQ(parts[1].content_type, "audio/wav");
  EXPECT_EQ(parts[1].body, "RIFF\r\n--X\r\n");
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=\"a;b\""), "a;b");
  EXPECT_EQ(multipart_boundary("Multipart/Form-Data;boundary=XyZ"), "XyZ");
}

TEST(Multipart, MalformedOrOversizedFormsAreA400) {
  const std::string good = form({{"model", "", "", "m"}});
  const std::string cases[] = {
      good.substr(0, good.size() - 9),                                          // no closing delimiter
      "--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--",                  // no name
      "--XyZ\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--XyZ--",  // not form-data
      "--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nx\r\n--XyZ--",  // unterminated quote
      "--XyZ\r\nno colon\r\n\r\nx\r\n--XyZ--",
      "--XyZ junk",
      "no delimiter at all",
      "--XyZ\r\nContent-Disposition: form-data; name=a" + std::string(10000, ' ') + "\r\n\r\nx\r\n--XyZ--",
  };
  for (const std::string& body : cases) {
    ApiError e = error_of([&] { parse_multipart(body, kBoundary); });
    EXPECT_EQ(e.status, 400) << body.substr(0, 80);
  }
  std::vector<std::array<std::string, 4>> many(65, {"f", "", "", "x"});
  EXPECT_NE(error_of([&] { parse_multipart(form(many), kBoundary); }).message.find("more than 64 parts"), std::string::npos);
  EXPECT_EQ(error_of([] { multipart_boundary("application/json"); }).status, 400);
  EXPECT_EQ(error_of([] { multipart_boundary("multipart/form-data"); }).status, 400);
  EXPECT_EQ(error_of([] { multipart_boundary("multipart/form-data; boundary=" + std::string(71, 'b')); }).status, 400);
}

// A 16 kHz mono 16-bit PCM WAV of `samples` samples.
std::string wav(std::uint32_t samples) {
  auto le = [](std::uint32_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>(v >> (8 * i) & 0xff);
    return s;
  };
  return "RIFF" + le(36 + samples * 2, 4) + "WAVEfmt " + le(16, 4) + le(1, 2) + le(1, 2) + le(16000, 4) +
         le(32000, 4) + le(2, 2) + le(16, 2) + "data" + le(samples * 2, 4) + std::string(samples * 2, '\0');
}

TEST(Transcription, TheFormBecomesOneUserTurnWithTheAudio) {
  const std::string body = form({{"model", "", "", "m"}, {"file", "x.wav", "application/octet-stream", wav(24000)},
                                 {"language", "", "", "de"}, {"prompt", "", "", "names: Ada"},
                                 {"temperature", "", "", "0.2"}, {"response_format", "", "", "srt"}, {"zz", "", "", "1"}});
  ApiRequest r = parse_transcription_request("multipart/form-data; boundary=XyZ", body, false);
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 1u);
  ASSERT_EQ(r.messages[0].parts.size(), 2u);
  EXPECT_EQ(r.messages[0].parts[0].kind, ContentPart::Kind::kAudio);
  EXPECT_EQ(r.messages[0].parts[0].media.mime, "audio/wav");  // from the file name
  EXPECT_EQ(r.messages[0].parts[0].media.origin, "file");
  EXPECT_NE(r.messages[0].parts[1].text.find("names: Ada"), std::string::npos);
  EXPECT_FLOAT_EQ(*r.options.sampling.temperature, 0.2f);
  ASSERT_TRUE(r.transcription);
  EXPECT_EQ(r.transcription->format, TranscriptFormat::kSrt);
  EXPECT_DOUBLE_EQ(r.transcription->duration, 1.5);
  EXPECT_EQ(r.unknown_fields, std::vector<std::string>{"zz"});
  EXPECT_EQ(r.media_audio, 1u);
}

TEST(Transcription, BadFormsNameTheField) {
  const std::string ct = "multipart/form-data; boundary=XyZ";
  const std::pair<std::string, std::string> cases[] = {
      {form({{"model", "", "", "m"}}), "file"},
      {form({{"file", "x.wav", "audio/wav", "RIFF"}}), "model"},
      {form({{"model", "", "", "m"}, {"file", "x.txt", "text/plain", "hello"}}), "file"},
      {form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", ""}}), "file"},
      {form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", "R"}, {"response_format", "", "", "xml"}}), "response_format"},
      {form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", "R"}, {"temperature", "", "", "hot"}}), "temperature"},
      {form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", "R"}, {"stream", "", "", "true"}}), "stream"},
      {form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", "R"}, {"timestamp_granularities[]", "", "", "word"}}),
       "timestamp_granularities[]"},
  };
  for (const auto& [body, param] : cases) {
    ApiError e = error_of([&] { parse_transcription_request(ct, body, false); });
    EXPECT_EQ(e.status, 400) << param;
    EXPECT_EQ(e.param, param) << e.message;
  }
  JsonLimits small;
  small.media.max_bytes = 10;
  EXPECT_EQ(error_of([&] {
              parse_transcription_request(ct, form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", wav(100)}}),
                                          false, small);
            }).param,
            "file");
  EXPECT_EQ(error_of([&] {
              parse_transcription_request(ct, form({{"model", "", "", "m"}, {"file", "x.wav", "audio/wav", "R"},
                                                    {"language", "", "", "de"}}), true);
            }).param,
            "language");
  EXPECT_EQ(error_of([&] { parse_transcription_request("application/json", "{}", false); }).status, 400);
}

TEST(TranscriptRender, EveryResponseFormat) {
  Transcript t;
  t.language = "english";
  t.duration = 3725.5;
  t.text = "Hello there.";
  t.segments = {{0, 1.25, "Hello", {1, 2}, -0.5}, {1.25, 3725.5, "there.", {3}, -0.25}};
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kJson).body, R"({"text":"Hello there."})");
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kText).body, "Hello there.");
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kText).content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kSrt).body,
            "1\n00:00:00,000 --> 00:00:01,250\nHello\n\n2\n00:00:01,250 --> 01:02:05,500\nthere.\n\n");
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kVtt).body,
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.250\nHello\n\n00:00:01.250 --> 01:02:05.500\nthere.\n\n");
  const json v = json::parse(render_transcript(t, TranscriptFormat::kVerboseJson).body);
  EXPECT_EQ(v["task"], "transcribe");
  EXPECT_EQ(v["language"], "english");
  EXPECT_DOUBLE_EQ(v["duration"].get<double>(), 3725.5);
  EXPECT_EQ(v["text"], "Hello there.");
  ASSERT_EQ(v["segments"].size(), 2u);
  EXPECT_EQ(v["segments"][1]["id"], 1);
  EXPECT_DOUBLE_EQ(v["segments"][1]["start"].get<double>(), 1.25);
  EXPECT_EQ(v["segments"][0]["tokens"], json({1, 2}));
  EXPECT_EQ(cue_time(-3, true), "00:00:00,000");
}

TEST(TranscriptRender, WavDurationReadsTheHeaderOrGivesZero) {
  EXPECT_DOUBLE_EQ(wav_duration(wav(16000)), 1.0);
  EXPECT_DOUBLE_EQ(wav_duration("RIFF"), 0.0);
  EXPECT_DOUBLE_EQ(wav_duration("ID3 mp3 bytes here"), 0.0);
}

TEST(RequestModel, MetricsCountMediaByKind) {
  Metrics m;
  m.count_media(2, 1);
  m.count_media(1, 0);
  const std::string text = m.prometheus_text(0, 0);
  EXPECT_NE(text.find("ogai_media_inputs_total{kind=\"image\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("ogai_media_inputs_total{kind=\"audio\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace ogai::serve
