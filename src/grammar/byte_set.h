// ByteSet: a set of byte values (256 bits), the terminal of every grammar (grammar.h).
#pragma once

#include <array>
#include <cstdint>

namespace ogai::grammar {

class ByteSet {
 public:
  static ByteSet of(std::uint8_t b) {
    ByteSet s;
    s.add(b);
    return s;
  }
  static ByteSet range(std::uint8_t lo, std::uint8_t hi) {
    ByteSet s;
    s.add_range(lo, hi);
    return s;
  }

  void add(std::uint8_t b) { bits_[b >> 6] |= std::uint64_t{1} << (b & 63); }
  void add_range(std::uint8_t lo, std::uint8_t hi) {
    for (unsigned b = lo; b <= hi; ++b) add(static_cast<std::uint8_t>(b));
  }
  void add(const ByteSet& o) {
    for (int i = 0; i < 4; ++i) bits_[i] |= o.bits_[i];
  }
  ByteSet operator&(const ByteSet& o) const {
    ByteSet r;
    for (int i = 0; i < 4; ++i) r.bits_[i] = bits_[i] & o.bits_[i];
    return r;
  }
  bool has(std::uint8_t b) const { return (bits_[b >> 6] >> (b & 63)) & 1; }
  bool empty() const { return (bits_[0] | bits_[1] | bits_[2] | bits_[3]) == 0; }
  bool operator==(const ByteSet&) const = default;

 private:
  std::array<std::uint64_t, 4> bits_{};
};

}  // namespace ogai::grammar
