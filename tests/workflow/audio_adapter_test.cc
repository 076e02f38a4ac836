// The onnx-genai.audio-preprocess@1 and text-assembly@1 adapters in the interpreter: a package
// written here whose workflow invokes the audio adapter and emits its outputs, run on encoded
// WAV bytes; load-time refusals naming the document path; text-assembly invoked from a step.
#include <gtest/gtest.h>

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
