// Heap: the memory of one render. A monotonic arena (nothing is freed before the render ends)
// over a counting upstream that refuses to grow past a limit, so a hostile template fails with a
// clear error instead of exhausting memory. Not thread-safe: one per render.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <new>
#include <string_view>
#include <utility>

namespace ogai::chat::jinja {

// Thrown when a render exceeds its memory limit; converted to ogai::Error by the renderer.
struct HeapExhausted {
  std::size_t limit;
};

class CountingResource : public std::pmr::memory_resource {
 public:
  explicit CountingResource(std::size_t limit) : limit_(limit) {}

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    if (bytes > limit_ - used_) throw HeapExhausted{limit_};
    used_ += bytes;
    return std::pmr::new_delete_resource()->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    used_ -= bytes;
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }
  std::size_t limit_;
  std::size_t used_ = 0;
};

class Heap {
 public:
  explicit Heap(std::size_t limit) : upstream_(limit), arena_(initial_, sizeof initial_, &upstream_) {}
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  std::pmr::memory_resource* resource() { return &arena_; }

  template <typename T, typename... Args>
  T* make(Args&&... args) {
    void* p = arena_.allocate(sizeof(T), alignof(T));
    return new (p) T(std::forward<Args>(args)...);
  }

  // Copies bytes into the arena; the view lives until the render ends.
  std::string_view copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(arena_.allocate(s.size(), 1));
    std::char_traits<char>::copy(p, s.data(), s.size());
    return {p, s.size()};
  }

 private:
  CountingResource upstream_;
  alignas(std::max_align_t) std::byte initial_[8192];
  std::pmr::monotonic_buffer_resource arena_;
};

}  // namespace ogai::chat::jinja
