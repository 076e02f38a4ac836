// KvBudget reservations: each gives its bytes back exactly once (release, destruction, move).
#include "generate/kv_reservation.h"

#include <gtest/gtest.h>

#include <unordered_map>

namespace ogai::generate {
namespace {

TEST(KvBudget, ReservationsGiveTheirBytesBackOnce) {
  KvBudget budget;
  {
    KvBudget::Reservation a = budget.reserve(100);
    KvBudget::Reservation b = budget.reserve(40);
    EXPECT_EQ(budget.held(), 140u);
    a.release();
    a.release();  // twice: nothing more
    EXPECT_EQ(budget.held(), 40u);
    KvBudget::Reservation moved = std::move(b);
    EXPECT_EQ(budget.held(), 40u);
    EXPECT_EQ(moved.bytes(), 40u);
    moved = budget.reserve(7);  // the old reservation goes back when replaced
    EXPECT_EQ(budget.held(), 7u);
  }
  EXPECT_EQ(budget.held(), 0u);  // destroyed with their scope
  std::unordered_map<int, KvBudget::Reservation> held;
  held.emplace(1, budget.reserve(5));
  held.emplace(2, budget.reserve(6));
  held.erase(1);
  held.erase(3);  // none: nothing happens
  EXPECT_EQ(budget.held(), 6u);
}

}  // namespace
}  // namespace ogai::generate
