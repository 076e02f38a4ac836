// Encoder-decoder (Whisper-form) folders imported and executed (docs/encoder_decoder.md).
// Folders under the build tree, written at test time by tools/genai/whisper_standin.py:
//   whisper-dummy    ORT GenAI's shared whisper folder as it is, plus a node-free encoder with the
//                    config's ports (outputs fixed initializers, batch 2): imports and validates;
//                    generating is refused naming the encoder output and the shape it expected;
//   whisper-standin  the same config, tokenizer and audio processor config, graphs that compute.
// The stand-in is checked against an independent bare ONNX Runtime loop (whisper_bare_loop.h)
// fed the same features, and structurally: the forced decoder prompt, one encoder run per
// request, different audio -> different ids, a batch equal to each request alone, the prefix
// cache disabled. The shared folders themselves: whisper lacks its encoder graph (refused naming
// the file), marian-batch is an SSRU decoder (refused naming the type).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "encdec/whisper_bare_loop.h"
#include "generate/engine.h"
#include "generate/model_impl.h"
#include "generate/request.h"
#include "importer/import.h"
#include "media/audio/program.h"
#include "metadata/package.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
constexpr int kTokens = 8;
const std::vector<TokenId> kForced = {50258, 50259, 50359, 50363};  // <|startoftranscript|><|en|><|transcribe|><|notimestamps|>

fs::path generated(const std::string& name) { return fs::path(OGAI_BINARY_DIR) / "encdec_folders" / name; }
fs::path shared(const std::string& name) { return fs::path(OGAI_SHARED_DIR) / "ortgenai" / name; }

// A mono PCM16 WAV of `seconds` of a sine at `hz` (16 kHz), amplitude 0.3.
std::string sine_wav(double hz, double seconds, int rate = 16000) {
  const auto n = static_cast<std::uint32_t>(seconds * rate);
  std::string data(n * 2, '\0');
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::int16_t>(std::lround(0.3 * 32767 * std::sin(2 * std::numbers::pi * hz * i / rate)));
    std::memcpy(&data[i * 2], &s, 2);
  }
  auto u32 = [](std::uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [](std::uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); };
  return "RIFF" + u32(36 + n * 2) + "WAVE" + "fmt " + u32(16) + u16(1) + u16(1) + u32(rate) + u32(rate * 2) + u16(2) +
         u16(16) + "data" + u32(n * 2) + data;
}

MediaInput audio(const std::string& bytes, const std::string& origin = "clip.wav") {
  MediaInput m;
  m.kind = MediaInput::Kind::kAudio;
  m.bytes = bytes;
  m.origin = origin;
  return m;
}

GenerationOptions greedy(std::vector<MediaInput> media) {
  GenerationOptions o;
  o.max_new_tokens = kTokens;
  o.ignore_eos = true;
  o.sampling.do_sample = false;
  o.media = std::move(media);
  return o;
}

std::shared_ptr<const Model> standin() {
  static std::shared_ptr<const Model> m = Model::load(generated("whisper-standin"));
  return m;
}

std::string run_cli(const std::string& args) {
  FILE* pipe = popen((std::string(OGAI_EXE) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// The features ogai's program computes for a clip (what the bare loop is fed).
std::vector<float> features_of(const std::string& wav, std::vector<std::int64_t>& shape) {
  auto package = metadata::load_package(generated("whisper-standin"));
  auto program = media::audio::parse_audio_program(package.document.preprocessing["audio"], "preprocessing.audio");
  auto out = program.run(std::span(reinterpret_cast<const std::uint8_t*>(wav.data()), wav.size()), "clip");
  shape = out.at(0).shape;
  return out.at(0).f32;
}

TEST(EncoderDecoderImport, StandInAndDummyFoldersImportAndValidate) {
  for (const char* name : {"whisper-standin", "whisper-dummy"}) {
    auto imported = importer::import_genai_folder(generated(name));
    for (const char* expected :
         {"kind: cross_attention", "access: read_only", "initializer: encoder.cross_key_0", "component: encoder",
          "abi: onnx-genai.audio-preprocess", "num_mel_bins: 80", "target_length: 480000",
          "decoder_start: {id: 50258", "language: {id: 50259", "task: {id: 50359", "no_timestamps: {id: 50363"})
      EXPECT_NE(imported.document.find(expected), std::string::npos) << name << ": " << expected;
    auto report = metadata::validate_package(generated(name));
    EXPECT_TRUE(report.valid()) << name << ": " << report.diagnostics.text();
  }
}

TEST(EncoderDecoderImport, SharedFoldersAreRefusedByName) {
  try {
    importer::import_genai_folder(shared("whisper"));
    ADD_FAILURE() << "imported a whisper folder without its encoder graph";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.encoder.filename 'dummy_encoder.onnx'"), std::string::npos) << e.what();
  }
  try {
    importer::import_genai_folder(shared("marian-batch"));
    ADD_FAILURE() << "imported marian-ssru";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'marian-ssru' is an encoder-decoder translation model whose decoder carries "
                                         "SSRU recurrent state"), std::string::npos) << e.what();
  }
}

// A copy of the stand-in folder whose audio_processor_config.json `edit` changes.
fs::path with_audio_config(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  const fs::path dir = generated(name);
  fs::remove_all(dir);
  fs::copy(generated("whisper-standin"), dir);
  auto config = nlohmann::json::parse(read_file(dir / "audio_processor_config.json"));
  edit(config);
  write_file(dir / "audio_processor_config.json", config.dump());
  return dir;
}

TEST(EncoderDecoderImport, AudioProcessorConfigsOutsideTheMappingAreRefusedByPath) {
  auto expect_refused = [](const fs::path& dir, const std::string& fragment) {
    try {
      importer::import_genai_folder(dir);
      ADD_FAILURE() << "imported " << dir;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto seq = [](nlohmann::json& c) -> nlohmann::json& { return c["feature_extraction"]["sequence"]; };
  expect_refused(with_audio_config("audio-op", [&](auto& c) { seq(c)[1]["operation"]["type"] = "Spectrogram"; }),
                 "feature_extraction.sequence[1].operation.type: 'Spectrogram'");
  expect_refused(with_audio_config("audio-window", [&](auto& c) {
                   seq(c)[1]["operation"]["attrs"]["_comment"][5] = 0.5;
                 }),
                 "feature_extraction.sequence[1].operation.attrs._comment[5]");
  expect_refused(with_audio_config("audio-attr", [&](auto& c) { seq(c)[2]["operation"]["attrs"]["power"] = 1; }),
                 "feature_extraction.sequence[2].operation.attrs.power");
  expect_refused(with_audio_config("audio-hop", [&](auto& c) { seq(c)[2]["operation"]["attrs"]["hop_length"] = 200; }),
                 "feature_extraction.sequence[2].operation.attrs.hop_length");
}

TEST(EncoderDecoderRun, TheDummyEncodersFixedOutputsAreRefusedNamingTheShape) {
  auto model = Model::load(generated("whisper-dummy"));
  try {
    model->generate("", greedy({audio(sine_wav(440, 1.0))}));
    ADD_FAILURE() << "generated from an encoder whose outputs ignore the feeds";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("present_key_cross_0"), std::string::npos) << what;
    EXPECT_NE(what.find("produced float32 [2, 6, 1500, 64], expected float32 [1, 6, 1500, 64]"), std::string::npos)
        << what;
  }
}

TEST(EncoderDecoderRun, EqualsTheBareLoopWithTheForcedPrompt) {
  const std::string wav = sine_wav(440, 1.5);
  auto result = standin()->generate("", greedy({audio(wav)}));
  EXPECT_EQ(result.prompt_ids, kForced);
  std::vector<std::int64_t> shape;
  auto features = features_of(wav, shape);
  EXPECT_EQ(shape, (std::vector<std::int64_t>{1, 80, 3000}));
  testing::WhisperBareLoop bare(generated("whisper-standin"));
  EXPECT_EQ(result.ids, bare.greedy(features, shape, kForced, kTokens));
}

// Language detection's decode (serve/audio/whisper_transcriber.h): one step after
// <|startoftranscript|> restricted to the language tokens equals the bare loop's argmax over them.
TEST(EncoderDecoderRun, AllowedTokenIdsEqualTheBareLoopsRestrictedArgmax) {
  std::vector<TokenId> languages;
  for (TokenId id = 50259; id < 50358; ++id) languages.push_back(id);
  testing::WhisperBareLoop bare(generated("whisper-standin"));
  std::set<TokenId> picked;
  for (double hz : {300.0, 900.0, 2500.0, 5000.0}) {
    const std::string wav = sine_wav(hz, 1.0);
    GenerationOptions o = greedy({audio(wav)});
    o.max_new_tokens = 1;
    o.allowed_token_ids = languages;
    auto result = standin()->generate("<|startoftranscript|>", o);
    std::vector<std::int64_t> shape;
    auto features = features_of(wav, shape);
    const auto expected = bare.greedy(features, shape, {50258}, 1, [&](const float* logits, std::int64_t) {
      return static_cast<std::int32_t>(std::max_element(logits + 50259, logits + 50358) - logits);
    });
    EXPECT_EQ(result.ids, expected) << hz;
    picked.insert(result.ids.at(0));
  }
  // The unrestricted argmax is not a language token here, so the restriction is what is tested.
  std::vector<std::int64_t> shape;
  auto features = features_of(sine_wav(300, 1.0), shape);
  const auto free = bare.greedy(features, shape, {50258}, 1);
  EXPECT_TRUE(free[0] < 50259 || free[0] >= 50358) << free[0];
}

// Whisper's timestamp rules through the engine (the rules themselves: timestamp_rules_test and the
// transformers.js comparison): the first token is a timestamp within 1.0 s, timestamps never
// decrease, and <|notimestamps|> never appears.
TEST(EncoderDecoderRun, TimestampRulesHoldOnGeneratedIds) {
  GenerationOptions o = greedy({audio(sine_wav(700, 1.0))});
  o.max_new_tokens = 40;
  o.timestamp_rules = TimestampRules{50257, 50363, 50};
  auto r = standin()->generate("<|startoftranscript|><|en|><|transcribe|>", o);
  ASSERT_FALSE(r.ids.empty());
  EXPECT_GE(r.ids[0], 50364);
  EXPECT_LE(r.ids[0], 50364 + 50);
  TokenId last = 0;
  for (TokenId id : r.ids) {
    EXPECT_NE(id, 50363);
    if (id >= 50364) {
      EXPECT_GE(id, last);
      last = id;
    }
  }
  GenerationOptions both = o;
  both.allowed_token_ids = {1};
  EXPECT_THROW(standin()->generate("<|startoftranscript|>", both), Error);
}

TEST(EncoderDecoderRun, OneEncoderRunPerRequestAndAudioMatters) {
  const auto& stage = *standin()->impl().encoder;
  const auto before = stage.runs();
  auto a = standin()->generate("", greedy({audio(sine_wav(300, 2.0))}));
  auto b = standin()->generate("", greedy({audio(sine_wav(2500, 0.7))}));
  EXPECT_EQ(stage.runs(), before + 2);  // prefill and every decode step read the one run's outputs
  EXPECT_NE(a.ids, b.ids);
  EXPECT_EQ(a.ids.size(), static_cast<std::size_t>(kTokens));
}

TEST(EncoderDecoderRun, ATaskPromptChoosesLanguageAndTask) {
  auto fr = standin()->generate("<|startoftranscript|><|fr|><|translate|><|notimestamps|>",
                                greedy({audio(sine_wav(440, 1.0))}));
  EXPECT_EQ(fr.prompt_ids, (std::vector<TokenId>{50258, 50265, 50358, 50363}));
}

TEST(EncoderDecoderRun, BatchedRowsEqualEachAlone) {
  const std::vector<std::string> clips = {sine_wav(300, 2.0), sine_wav(900, 1.0), sine_wav(2500, 0.7)};
  std::vector<GenerationResult> alone;
  for (const auto& c : clips) alone.push_back(standin()->generate("", greedy({audio(c)})));
  const Model::Impl& impl = standin()->impl();
  generate::EngineLimits limits;
  limits.max_rows = 3;
  generate::Engine engine(impl.sequence_model(), limits);
  std::vector<std::shared_ptr<generate::LiveSequence>> rows;
  for (const auto& c : clips) {
    auto options = greedy({audio(c)});
    auto request = generate::resolve_request(options, impl.config.generation, 0);
    auto g = impl.start(request, {}, {}, {});
    rows.push_back(std::dynamic_pointer_cast<generate::LiveSequence>(g));
    engine.add(rows.back());
  }
  std::int64_t widest = 0;
  while (!engine.idle()) {
    engine.step();
    widest = std::max<std::int64_t>(widest, engine.decoding());
  }
  EXPECT_EQ(widest, 3);
  for (std::size_t i = 0; i < clips.size(); ++i) {
    ASSERT_FALSE(rows[i]->error()) << i;
    EXPECT_EQ(rows[i]->result().ids, alone[i].ids) << i;
  }
  EXPECT_FALSE(impl.config.decoder.cache.prefix_reusable);  // no prefix cache across encoder inputs
}

// Whisper's decoder has no attention mask, so a row that arrives later (shorter) must not share a
// run with longer rows (its left padding would be attended): it waits, and still equals alone.
TEST(EncoderDecoderRun, RowsArrivingLaterEqualEachAlone) {
  const std::vector<std::string> clips = {sine_wav(300, 2.0), sine_wav(900, 1.0)};
  std::vector<GenerationResult> alone;
  for (const auto& c : clips) alone.push_back(standin()->generate("", greedy({audio(c)})));
  const Model::Impl& impl = standin()->impl();
  generate::EngineLimits limits;
  limits.max_rows = 2;
  generate::Engine engine(impl.sequence_model(), limits);
  std::vector<std::shared_ptr<generate::LiveSequence>> rows;
  auto add = [&](const std::string& clip) {
    auto options = greedy({audio(clip)});
    auto request = generate::resolve_request(options, impl.config.generation, 0);
    rows.push_back(std::dynamic_pointer_cast<generate::LiveSequence>(impl.start(request, {}, {}, {})));
    engine.add(rows.back());
  };
  add(clips[0]);
  for (int i = 0; i < 3; ++i) engine.step();
  add(clips[1]);
  while (!engine.idle()) engine.step();
  for (std::size_t i = 0; i < clips.size(); ++i) {
    ASSERT_FALSE(rows[i]->error()) << i;
    EXPECT_EQ(rows[i]->result().ids, alone[i].ids) << i;
  }
}

// The public Engine (the server's path): text prompts without the tokenizer's template, each
// request its own encoder run, concurrent requests equal to Model::generate.
TEST(EncoderDecoderRun, ThePublicEngineEqualsModelGenerate) {
  const std::vector<std::string> clips = {sine_wav(300, 2.0), sine_wav(2500, 0.7)};
  Engine engine(standin());
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  for (const auto& c : clips) handles.push_back(engine.submit(std::string_view(""), greedy({audio(c)})));
  for (std::size_t i = 0; i < clips.size(); ++i) {
    auto result = handles[i]->wait();
    EXPECT_EQ(result.prompt_ids, kForced) << i;
    EXPECT_EQ(result.ids, standin()->generate("", greedy({audio(clips[i])})).ids) << i;
  }
}

TEST(EncoderDecoderRun, MediaIsRequiredAndChecked) {
  auto expect_error = [](const GenerationOptions& o, const std::string& where, const std::string& text) {
    try {
      standin()->generate("", o);
      ADD_FAILURE() << "accepted " << where;
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), where) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_error(greedy({}), "media", "give one audio input");
  MediaInput image = audio("x");
  image.kind = MediaInput::Kind::kImage;
  expect_error(greedy({image}), "media[0]", "no image encoder");
  expect_error(greedy({audio(sine_wav(440, 0.5)), audio(sine_wav(440, 0.5))}), "media[1]", "one audio clip");
}

TEST(EncoderDecoderCli, GenerateAudioPrintsTheTranscription) {
  const fs::path wav = generated("cli-clip.wav");
  write_file(wav, sine_wav(440, 1.5));
  auto expected = standin()->generate("", greedy({audio(sine_wav(440, 1.5))}));
  const std::string out = run_cli("generate " + generated("whisper-standin").string() + " --audio " + wav.string() +
                                  " --max-new-tokens 8 --ignore-eos --json");
  EXPECT_NE(out.find("\"prompt_ids\":[50258,50259,50359,50363]"), std::string::npos) << out;
  std::string ids = "\"ids\":[";
  for (std::size_t i = 0; i < expected.ids.size(); ++i) ids += (i ? "," : "") + std::to_string(expected.ids[i]);
  EXPECT_NE(out.find(ids + "]"), std::string::npos) << out;
  const std::string missing = run_cli("generate " + generated("whisper-standin").string() + " --audio " +
                                      generated("no-such.wav").string());
  EXPECT_NE(missing.find("no-such.wav"), std::string::npos) << missing;
}

}  // namespace
}  // namespace ogai
