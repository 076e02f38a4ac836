#include "tokenizer/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace ogai::tokenizer {
namespace {

constexpr std::size_t kHuge = 2u << 20;
constexpr std::size_t kMapThreshold = 2u << 20;

}  // namespace

void advise_huge_pages(void* p, std::size_t bytes) {
  auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void* huge_allocate(std::size_t bytes) {
  if (bytes < kMapThreshold) return ::operator new(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  advise_huge_pages(p, bytes);
  return p;
}

void huge_deallocate(void* p, std::size_t bytes) {
  if (!p) return;
  if (bytes < kMapThreshold) ::operator delete(p);
  else munmap(p, bytes);
}

}  // namespace ogai::tokenizer
