// OGAI_API marks what libogai.so exports. The library is built with hidden visibility: only the
// classes and functions of include/ogai/ carry this attribute, everything else in the library
// (the pipeline stages, third-party code compiled in) stays internal. Plain C and C++.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define OGAI_API __attribute__((visibility("default")))
#else
#define OGAI_API
#endif
