// KvBudget: the KV bytes the admitted sequences of an engine may grow to, as one reservation per
// sequence. reserve() hands out a move-only KvBudget::Reservation that gives its bytes back
// exactly once, when released or destroyed, so the held total is always the sum of the live
// reservations (no subtraction that could run below zero). The engine (engine.h) reserves a
// sequence's projected KV when it admits it and drops the reservation when it finishes.
// O(1) per call; not thread-safe (the engine's thread). The budget must outlive its reservations.
#pragma once

#include <cstddef>
#include <utility>

namespace ogai::generate {

class KvBudget {
 public:
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept
        : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    Reservation& operator=(Reservation&& other) noexcept {
      if (this != &other) {
        release();
        budget_ = std::exchange(other.budget_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
      }
      return *this;
    }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { release(); }

    std::size_t bytes() const { return bytes_; }
    void release() {
      if (budget_) budget_->held_ -= bytes_;
      budget_ = nullptr;
      bytes_ = 0;
    }

   private:
    friend class KvBudget;
    Reservation(KvBudget* budget, std::size_t bytes) : budget_(budget), bytes_(bytes) { budget_->held_ += bytes_; }
    KvBudget* budget_ = nullptr;
    std::size_t bytes_ = 0;
  };

  KvBudget() = default;
  KvBudget(const KvBudget&) = delete;
  KvBudget& operator=(const KvBudget&) = delete;

  Reservation reserve(std::size_t bytes) { return Reservation(this, bytes); }
  // Bytes held by live reservations.
  std::size_t held() const { return held_; }

 private:
  std::size_t held_ = 0;
};

}  // namespace ogai::generate
