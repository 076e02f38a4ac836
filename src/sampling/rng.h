// Rng: the sampler's pseudo-random generator, identical on every platform.
//
// Generator: xoshiro256** (Blackman & Vigna, 2018; 256-bit state, period 2^256 - 1), its state
// filled from the 64-bit seed by four outputs of splitmix64 (Steele, Lea & Flood), the seeding the
// generator's authors recommend. uniform() returns the top 53 bits of one output times 2^-53: a
// double in [0, 1) on a grid of 2^-53. Only integer arithmetic and one exact conversion are
// involved, so a seed gives the same stream on every compiler, libc and CPU (unlike
// std::uniform_real_distribution, whose algorithm is implementation-defined).
//
// Not cryptographic. Not thread-safe: one Rng per sampler. Copyable (a copy forks the stream).
#pragma once

#include <array>
#include <cstdint>

namespace ogai::sampling {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next();   // the next 64 random bits
  double uniform();  // in [0, 1)

 private:
  std::array<uint64_t, 4> state_;
};

// A seed drawn from std::random_device, for requests that give none.
uint64_t nondeterministic_seed();

}  // namespace ogai::sampling
