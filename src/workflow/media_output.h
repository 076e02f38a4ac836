// Media outputs (an output's `media` contract, v1 §2.3): the rule that finds a workflow's
// buffered 16-bit WAV output (the one a speech route encodes), and the encoding of an emitted
// audio tensor as WAV files through src/media/audio (libsoxr, libsndfile).
//   pre_adapter  float [B, channels, samples] (or one row [channels, samples]) at
//                `source_sample_rate_hz` (absent: `sample_rate_hz`) -> resampled per channel to
//                `sample_rate_hz` -> pcm_s16_le or pcm_f32_le; one file per row;
//   post_adapter uint8 [bytes] that already are a WAV: checked (RIFF/WAVE, PCM or float format,
//                the declared channels and rate) and passed through.
// Encodings are read in the schema's spelling (pcm_s16_le, pcm_f32_le) and in the older
// pcm_s16le / pcm_f32le. Anything else (container raw, streaming delivery, another role, a
// missing rate) is refused by name, never approximated. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metadata/workflow.h"
#include "ort/tensor.h"
#include "workflow/request.h"

namespace ogai::workflow {

// Role audio, media {container wav, encoding pcm_s16_le, delivery buffered, sample_rate_hz > 0,
// channels > 0}: what a speech route can serve.
bool is_buffered_pcm16_wav(const metadata::WorkflowOutput& output);
// The names of such outputs, in document order.
std::vector<std::string> buffered_pcm16_wav_outputs(const metadata::Workflow& wf);
// The one such output; throws kInvalidPackage naming every candidate when there are several,
// and naming the media contract it needs when there is none.
std::string the_speech_output(const metadata::Workflow& wf);

// WAV files of one output's emitted tensor: one per row (a single row for [1, C, S]). Throws
// ogai::Error naming `outputs.NAME.media` (or the shape) when the output is not a WAV media
// output or the tensor does not fit its contract.
std::vector<std::vector<std::uint8_t>> encode_wav_output(const metadata::Workflow& wf, const std::string& output,
                                                         const ort::Tensor& value);

struct MediaFile {
  // Relative: NAME.wav / NAME.png (NAME.row.R.wav / .png per row), a video's frames as
  // NAME/frame-0001.png (NAME.row.R/frame-0001.png per row); image_output.h encodes pixels.
  std::string path;
  std::vector<std::uint8_t> bytes;
};
// Every emitted output that has a media contract, and every image / video output, as files
// (aggregate and per-row keys).
std::vector<MediaFile> media_files(const metadata::Workflow& wf, const RunResult& result);

}  // namespace ogai::workflow
