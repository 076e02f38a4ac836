// The package's transcription profiles (`profiles.NAME` of kind `transcription`) as executable
// decoders: which workflow outputs hold the logits and the valid frame counts, and the CTC /
// greedy-argmax decoder (ctc_decode.h) with its vocabulary (the profile's inline `tokens`, or
// the package tokenizer's id -> token strings for `source: tokenizer` or no vocabulary).
//
// Which profiles ogai executes is metadata::profile_not_run (runnable.h): a required one it cannot
// run was refused at load; an ignorable one it cannot run is skipped here. Building throws
// kUnsupported / kInvalidPackage naming the profile's field (e.g. a tokenizer vocabulary in a
// package without tokenizer.json). transcribe() reads a finished run's outputs; it throws
// kInvalidArgument naming the profile when an output it needs was not emitted or is malformed.
// Immutable after construction; safe from several threads.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "metadata/package.h"
#include "workflow/ctc_decode.h"
#include "workflow/request.h"

namespace ogai::workflow {

struct TranscriptionProfile {
  std::string name;            // the profile's key under `profiles`
  std::string logits_output;   // the workflow output of the profile's `logits` role
  std::string lengths_output;  // of its `decoding.lengths` role; "" without one
  CtcDecoder decoder;
};

// Every transcription profile ogai executes, in document order.
std::vector<TranscriptionProfile> transcription_profiles(const metadata::Package& package);

struct ProfileTranscripts {
  std::string profile;
  std::vector<RowTranscript> rows;  // one per batch row, in row order
};

std::vector<ProfileTranscripts> transcribe(const std::vector<TranscriptionProfile>& profiles, const RunResult& result);

// {"NAME": [{"text": "...", "ids": [...]}, ...], ...}
nlohmann::json transcripts_json(const std::vector<ProfileTranscripts>& transcripts);

}  // namespace ogai::workflow
