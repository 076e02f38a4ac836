// LD_PRELOAD library for the CLI tests: interposes fwrite and aborts when it gets a null buffer,
// which glibc declares non-null (UBSan: "null pointer passed as argument 1, which is declared to
// never be null"), so the plain build catches what only the sanitizer build saw (issue 12,
// finding 14). <cstdio> is not included and the file is built with -fno-builtin so the compiler
// cannot assume the check away.
#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>

struct _IO_FILE;
using FwriteFn = std::size_t (*)(const void*, std::size_t, std::size_t, _IO_FILE*);

extern "C" std::size_t fwrite(const void* data, std::size_t size, std::size_t count, _IO_FILE* stream) {
  if (data == nullptr) {
    static const char kMessage[] = "fwrite_guard: fwrite called with a null buffer\n";
    (void)!write(2, kMessage, sizeof kMessage - 1);
    std::abort();
  }
  static FwriteFn real = reinterpret_cast<FwriteFn>(dlsym(RTLD_NEXT, "fwrite"));
  return real(data, size, count, stream);
}
