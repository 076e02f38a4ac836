// FlightGate: a counting gate with a bounded FIFO of waiting starts (flight_gate.h).
#include "serve/router/flight_gate.h"

#include <utility>

namespace ogai::serve::router {

FlightSlot::~FlightSlot() { gate_.leave(); }

bool FlightGate::enter(Start start) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    if (max_in_flight_ != 0 && in_flight_ >= max_in_flight_) {
      if (waiting_.size() >= max_waiting_) return false;
      waiting_.push_back(std::move(start));
      return true;
    }
    ++in_flight_;
  }
  start(std::make_shared<FlightSlot>(*this));
  return true;
}

void FlightGate::leave() {
  Start next;
  {
    std::lock_guard lock(mutex_);
    if (waiting_.empty()) {
      --in_flight_;
      return;
    }
    next = std::move(waiting_.front());  // the freed place goes to the oldest waiting request
    waiting_.pop_front();
  }
  next(std::make_shared<FlightSlot>(*this));
}

void FlightGate::close() {
  std::deque<Start> dropped;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    dropped.swap(waiting_);
  }
}  // destroyed outside the lock: a start's captures may hold anything

std::size_t FlightGate::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

std::size_t FlightGate::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

}  // namespace ogai::serve::router
