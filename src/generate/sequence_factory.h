// make_sequence: the one way a LiveSequence (live_sequence.h) is made, for every caller that
// generates natively (Model::Impl::start for ogai::Engine and the server, generate_sequence for
// Model::generate, generate_batch, the tests). It fits the prompt to the context, sets up the
// sampler and output stream, and makes the sequence speculative when `start.speculation` has a
// drafter. Throws ogai::Error as LiveSequence's constructor does. Cost: the prompt is copied.
#pragma once

#include <memory>

#include "generate/live_sequence.h"

namespace ogai::generate {

std::shared_ptr<LiveSequence> make_sequence(SequenceStart start);

}  // namespace ogai::generate
