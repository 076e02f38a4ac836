#include "generate/sequence_factory.h"

namespace ogai::generate {

std::shared_ptr<LiveSequence> make_sequence(SequenceStart start) {
  return std::make_shared<LiveSequence>(SequenceKey(), std::move(start));
}

}  // namespace ogai::generate
