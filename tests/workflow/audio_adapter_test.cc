// The onnx-genai.audio-preprocess@1 and text-assembly@1 adapters in the interpreter: a package
// written here whose workflow invokes the audio adapter and emits its outputs, run on encoded
// WAV bytes; load-time refusals naming the document path; text-assembly invoked from a step.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "media/audio/wav_encode.h"
#include "support.h"
#include "workflow/program.h"

namespace ogai::workflow {
namespace {

const char* kProgram = R"(preprocessing:
  audio:
    transforms:
      - {op: decode, outputs: [samples]}
      - {op: resample, inputs: [samples], outputs: [resampled], sample_rate: 16000}
      - {op: pad, inputs: [resampled], outputs: [windowed], mode: fixed_window, target_length: 16000}
      - {op: log_mel, inputs: [windowed], outputs: [mel], num_mel_bins: 80, sample_rate: 16000}
      - {op: normalize, inputs: [mel], outputs: [features], mode: whisper_log_mel}
      - {op: emit_valid_frames, inputs: [windowed], outputs: [valid_frames]}
    outputs:
      - {source: features, name: audio.input_features, content: audio_features, dtype: FEATURE_DTYPE,
         contract: {dtype: FEATURE_DTYPE, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}}
      - {source: valid_frames, name: audio.valid_frames, content: valid_frames, dtype: int64,
         contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}}
)";

const char* kWorkflow = R"(pipeline:
  workflow:
    manifest:
      adapter_abis: {onnx-genai.audio-preprocess: '1'}
      capabilities: [workflow_ssa, typed_emit]
    inputs:
      request.audio:
        contract: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
        role: {kind: runtime, version: '1.0', role: media}
        source: {kind: request}
    outputs:
      features:
        contract: {dtype: FEATURE_DTYPE, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
      valid_frames:
        contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
    components:
      audio_preprocess:
        implementation: {kind: adapter, abi: onnx-genai.audio-preprocess, version: '1'}
        ports:
          inputs:
            encoded: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
          outputs:
            input_features: {dtype: FEATURE_DTYPE, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}
            valid_frames: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
    steps:
      - kind: invoke
        component: audio_preprocess
        inputs: {encoded: request.audio}
        outputs: {input_features: audio.input_features, valid_frames: audio.valid_frames}
      - {kind: emit, value: audio.input_features, output: features, mode: replace}
      - {kind: emit, value: audio.valid_frames, output: valid_frames, mode: replace}
)";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p; (p = s.find(from)) != std::string::npos;) s.replace(p, from.size(), to);
  return s;
}

std::filesystem::path package(const std::string& name, const std::string& program, const std::string& dtype = "float32") {
  const auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_workflow_media" / name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "inference_metadata.yaml") << "schema_version: v1\n"
                                                 << replaced(program + kWorkflow, "FEATURE_DTYPE", dtype);
  return dir;
}

ort::Tensor wav_bytes(int rate, double seconds) {
  const auto n = static_cast<std::size_t>(rate * seconds);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(0.5 * std::sin(2 * 3.14159265358979 * 440 * i / rate));
  const auto wav = media::audio::encode_wav(x, 1, rate, media::audio::PcmEncoding::kS16, "clip");
  return ort::Tensor::copy_of(std::span<const std::uint8_t>(wav), {static_cast<std::int64_t>(wav.size())});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AudioAdapter, RunsTheProgramInTheWorkflow) {
  const Program p = load_program(package("audio_f32", kProgram));
  RunRequest request;
  request.tensors.emplace("request.audio", wav_bytes(22050, 0.25));
  const RunResult result = run(p, std::move(request));
  const auto& features = result.outputs.at("features");
  EXPECT_EQ(features.shape(), (ort::Shape{1, 80, 100}));
  for (float v : testing::floats(features)) ASSERT_TRUE(std::isfinite(v));
  EXPECT_EQ(testing::ints(result.outputs.at("valid_frames")), (std::vector<std::int64_t>{25}));
}

TEST(AudioAdapter, Float16Outputs) {
  const Program p = load_program(package("audio_f16", replaced(kProgram, "FEATURE_DTYPE", "float16"), "float16"));
  RunRequest request;
  request.tensors.emplace("request.audio", wav_bytes(16000, 0.5));
  const RunResult result = run(p, std::move(request));
  EXPECT_EQ(result.outputs.at("features").dtype(), DataType::kFloat16);
}

// Gemma-4's program through the workflow: features [1, frames, 128], the frame mask as bool and
// the soft-token count (values against transformers.js: tests/media/audio_hf_features.cjs).
const char* kGemma4 = R"(preprocessing:
  audio:
    transforms:
      - {op: decode}
      - {op: downmix, channels: 1}
      - {op: resample, sample_rate: 16000}
      - {op: trim, target_length: 480000}
      - {op: pad, multiple_of: 128}
      - {op: log_mel, num_mel_bins: 128, n_fft: 512, frame_length: 320, frame_extent: 321, hop_length: 160,
         pad_mode: semicausal, drop_last_frame: false, power: 1.0, mel_scale: htk, mel_norm: none, f_max: 8000,
         log: ln, log_floor: 0.001, log_floor_mode: add, frame_validity: extent_end}
      - {op: transpose, outputs: [features]}
      - {op: emit_validity_mask, inputs: [features], outputs: [mask]}
      - {op: emit_token_count, inputs: [features], outputs: [tokens], max_tokens: 750,
         convolutions: [{kernel: 3, stride: 2, padding: 1}, {kernel: 3, stride: 2, padding: 1}]}
    outputs:
      - {source: features, name: audio.input_features, content: audio_features, dtype: float32, pad_value: 0.0,
         contract: {dtype: float32, rank: 3, shape: [batch, frames, 128], batch_layout: {kind: request_aligned, axis: 0}}}
      - {source: mask, name: audio.input_features_mask, content: validity_mask, dtype: bool,
         contract: {dtype: bool, rank: 2, shape: [batch, frames], batch_layout: {kind: request_aligned, axis: 0}}}
      - {source: tokens, name: audio.soft_tokens, content: token_count, dtype: int64,
         contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}}
)";

// The first occurrence of `from` replaced (`to` may contain `from`).
std::string replaced_once(std::string s, const std::string& from, const std::string& to) {
  const auto p = s.find(from);
  if (p == std::string::npos) throw std::runtime_error("not in the document: " + from);
  return s.replace(p, from.size(), to);
}

TEST(AudioAdapter, Gemma4FeaturesMaskAndTokens) {
  const auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_workflow_media" / "audio_gemma4";
  std::filesystem::create_directories(dir);
  std::string doc = replaced(std::string(kGemma4) + kWorkflow, "FEATURE_DTYPE", "float32");
  doc = replaced(doc, "[batch, 80, frames]", "[batch, frames, 128]");
  doc = replaced_once(doc, "valid_frames: {dtype: int64, rank: 1, shape: [batch]", "mask: {dtype: bool, rank: 2, shape: [batch, frames]");
  doc = replaced_once(doc, "valid_frames:\n        contract: {dtype: int64, rank: 1, shape: [batch]",
                 "mask:\n        contract: {dtype: bool, rank: 2, shape: [batch, frames]");
  doc = replaced_once(doc, "outputs: {input_features: audio.input_features, valid_frames: audio.valid_frames}",
                 "outputs: {input_features: audio.input_features, mask: audio.input_features_mask, soft_tokens: audio.soft_tokens}");
  doc = replaced_once(doc, "{kind: emit, value: audio.valid_frames, output: valid_frames, mode: replace}",
                 "{kind: emit, value: audio.input_features_mask, output: mask, mode: replace}\n"
                 "      - {kind: emit, value: audio.soft_tokens, output: soft_tokens, mode: replace}");
  doc = replaced_once(doc, "    components:\n", "      soft_tokens:\n"
                 "        contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}\n"
                 "        role: tensor\n        stage: pre_adapter\n    components:\n");
  doc = replaced_once(doc, "          outputs:\n            input_features:",
                 "          outputs:\n            soft_tokens: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}\n"
                 "            input_features:");
  std::ofstream(dir / "inference_metadata.yaml") << "schema_version: v1\n" << doc;
  const Program p = load_program(dir);
  RunRequest request;
  request.tensors.emplace("request.audio", wav_bytes(22050, 0.5));  // 8000 samples at 16 kHz
  const RunResult result = run(p, std::move(request));
  EXPECT_EQ(result.outputs.at("features").shape(), (ort::Shape{1, 50, 128}));
  const auto& mask = result.outputs.at("mask");
  ASSERT_EQ(mask.dtype(), DataType::kBool);
  ASSERT_EQ(mask.shape(), (ort::Shape{1, 50}));
  const auto* bits = static_cast<const std::uint8_t*>(mask.raw_data());
  EXPECT_EQ(std::count(bits, bits + 50, 1), 49);
  EXPECT_EQ(bits[49], 0);
  EXPECT_EQ(testing::ints(result.outputs.at("soft_tokens")), (std::vector<std::int64_t>{13}));
}

TEST(AudioAdapter, BadMediaNamesTheInput) {
  const Program p = load_program(package("audio_bad", kProgram));
  RunRequest request;
  const std::string text = "this is not audio, it is text";
  request.tensors.emplace("request.audio", ort::Tensor::copy_of(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), {static_cast<std::int64_t>(text.size())}));
  const auto e = error_of([&] { run(p, std::move(request)); });
  EXPECT_NE(e.find("request.audio (input 'encoded' of component 'audio_preprocess')"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot decode"), std::string::npos) << e;
}

TEST(AudioAdapter, LoadRefusalsNameThePath) {
  auto e = error_of([] { load_program(package("audio_no_mels", replaced(kProgram, "num_mel_bins: 80, ", ""))); });
  EXPECT_NE(e.find("preprocessing.audio.transforms[3].num_mel_bins"), std::string::npos) << e;
  e = error_of([] { load_program(package("audio_unbound", replaced(kProgram, "name: audio.valid_frames", "name: audio.other"))); });
  // The validator's preprocessing rule (V-PREPROC) refuses it first, naming the output.
  EXPECT_NE(e.find("preprocessing.audio.outputs[1].name"), std::string::npos) << e;
  EXPECT_NE(e.find("audio.other"), std::string::npos) << e;
}

TEST(TextAssemblyAdapter, InvokingItFromAStepIsRefused) {
  const auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_workflow_media" / "speech_invoked";
  std::filesystem::remove_all(dir);
  std::filesystem::copy(testing::fixture("speech_wav"), dir, std::filesystem::copy_options::recursive);
  std::ifstream in(dir / "inference_metadata.yaml");
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string first_step = "    steps:\n";
  doc.insert(doc.find(first_step) + first_step.size(), "    - kind: invoke\n      component: speech_text_assembly\n");
  std::ofstream(dir / "inference_metadata.yaml") << doc;
  const Program p = load_program(dir);  // the processor artifact loads and checks
  RunRequest request;
  request.tensors.emplace("request.prompt_tokens", testing::i64({2, 6, 7, 8, 9, 3}, {1, 6}));
  const auto e = error_of([&] { run(p, std::move(request)); });
  EXPECT_NE(e.find("API-boundary contract"), std::string::npos) << e;
}

}  // namespace
}  // namespace ogai::workflow
