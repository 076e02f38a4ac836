#include "sampling/rng.h"

#include <gtest/gtest.h>

namespace ogai::sampling {
namespace {

// Pinned outputs: xoshiro256** seeded through splitmix64 (rng.h). splitmix64(1234567) starts
// 6457827717110365317, 3203168211198807973 (its published test values), which fixes the seeding;
// these pins catch any change of the stream on another platform or compiler.
TEST(RngTest, StreamIsPinned) {
  Rng a(42);
  EXPECT_EQ(a.next(), 1546998764402558742ULL);
  EXPECT_EQ(a.next(), 6990951692964543102ULL);
  EXPECT_EQ(a.next(), 12544586762248559009ULL);
  EXPECT_EQ(a.next(), 17057574109182124193ULL);
  Rng zero(0);
  EXPECT_EQ(zero.next(), 11091344671253066420ULL);
  EXPECT_EQ(zero.next(), 13793997310169335082ULL);
}

TEST(RngTest, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(7), b(7), c(8);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differ += x != c.next();
  }
  EXPECT_EQ(differ, 1000);
}

TEST(RngTest, UniformIsInUnitIntervalWithMeanHalf) {
  Rng rng(123);
  double sum = 0, lo = 1, hi = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  // The mean of n uniforms has standard deviation sqrt(1/12/n) ~ 0.00065; 5 sigma.
  EXPECT_NEAR(sum / n, 0.5, 0.0033);
  EXPECT_LT(lo, 1e-3);
  EXPECT_GT(hi, 1 - 1e-3);
}

}  // namespace
}  // namespace ogai::sampling
