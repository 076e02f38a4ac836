// Large allocations backed by transparent huge pages. On virtual machines a page fault can cost
// tens of microseconds, so loading a 30 MB tokenizer.json into 4 KiB pages spends most of its
// time faulting; 2 MiB pages cut that by two orders of magnitude. Everything here is a hint: when
// the kernel declines, memory behaves as usual. Thread-safe.
#pragma once

#include <cstddef>
#include <new>

namespace ogai::tokenizer {

// Asks for huge pages on the untouched region [p, p + bytes) (rounded inward to 2 MiB).
void advise_huge_pages(void* p, std::size_t bytes);

// Memory for `bytes`: mapped with huge pages when large, else from operator new.
void* huge_allocate(std::size_t bytes);
void huge_deallocate(void* p, std::size_t bytes);

// A std allocator over huge_allocate (for the big hash tables of a vocabulary).
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(huge_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { huge_deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
};

}  // namespace ogai::tokenizer
