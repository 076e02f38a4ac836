// Force-included into every ogai_test binary (cmake/OgaiTargets.cmake): OGAI_SHARED_DIR,
// OGAI_SOURCE_DIR and OGAI_BINARY_DIR are the directories the tests read, taken from the
// environment that CTest sets for each test, as `const char*`. They are not compile-time strings
// so that the objects do not depend on where the checkout is: a fresh clone elsewhere hits the
// compiler cache. Run a test binary by hand through `ctest -R NAME` (or set the three variables).
#pragma once

#include <cstdio>
#include <cstdlib>

inline const char* ogai_test_dir(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') {
    std::fprintf(stderr, "%s is not set: run this test through ctest (it sets %s), or set it by hand\n", variable,
                 variable);
    std::abort();
  }
  return value;
}

#define OGAI_SHARED_DIR ogai_test_dir("OGAI_SHARED_DIR")
#define OGAI_SOURCE_DIR ogai_test_dir("OGAI_SOURCE_DIR")
#define OGAI_BINARY_DIR ogai_test_dir("OGAI_BINARY_DIR")
