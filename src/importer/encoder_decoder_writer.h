// Writing the v1 document of an imported encoder-decoder folder (Whisper), internal to the
// importer. Layout (catalogue document 04's components, with the state service's form):
//   preprocessing.audio          the folder's audio_processor_config.json (audio_processor.h)
//   components                   audio_preprocess (onnx-genai.audio-preprocess@1), encoder, decoder
//   steps                        audio_preprocess -> encoder -> decoder, emit logits (and each
//                                output_cross_qk_N as a tensor output, so the graph's outputs are
//                                all accounted for)
//   state / serving groups       self_attention (full_attention, append along axis 2; the decoder's
//                                read_write aliases) and cross_attention (cells initialized from the
//                                encoder's present cross KV, read by the decoder through read_only
//                                aliases, never written: produced once per request)
//   package.tokenizer            special tokens bos/eos/pad and the forced decoder prompt:
//                                decoder_start, language, task, no_timestamps (Whisper's
//                                <|startoftranscript|><|en|><|transcribe|><|notimestamps|>)
// metadata/encoder_decoder.h is the runtime's reading of this shape. Pure function; deterministic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "importer/audio_processor.h"
#include "importer/document_writer.h"
#include "importer/genai_encoder.h"

namespace ogai::importer {

struct EncoderDocumentPlan {
  const DocumentPlan& decoder;  // the decoder side, as for a decoder-only folder
  const EncoderPorts& encoder;
  std::string encoder_artifact;  // relative to the folder
  AudioProgramPlan audio;
};

std::string write_encoder_decoder_document(const EncoderDocumentPlan& plan);

}  // namespace ogai::importer
