// The installed-package consumer: greedy generation through the C++ API of libogai.so.
//   consumer PACKAGE PROMPT MAX_NEW_TOKENS
// Prints "version <OGAI_VERSION_STRING>", "ids <id> <id> ...", "finish <reason>", then
// "text <generated text>" to the end of the output. Exit 1 on an ogai::Error (message on stderr).
#include <cstdio>
#include <string>

#include "ogai/ogai.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: consumer PACKAGE PROMPT MAX_NEW_TOKENS\n");
    return 2;
  }
  try {
    auto model = ogai::Model::load(argv[1]);
    ogai::GenerationOptions options;
    options.max_new_tokens = std::stoi(argv[3]);
    options.sampling.temperature = 0.0f;
    ogai::GenerationResult result = model->generate(argv[2], options);
    std::printf("version %s\nids", OGAI_VERSION_STRING);
    for (int id : result.ids) std::printf(" %d", id);
    std::printf("\nfinish %s\ntext %s", ogai::finish_reason_name(result.finish_reason), result.text.c_str());
    return 0;
  } catch (const ogai::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
