// FlightGate: the cross-model concurrency cap of the router (`ogai serve A B --models-parallel N`,
// docs/serve.md "Many models"). Each model has its own engine and its own --max-concurrent; the
// gate bounds the requests in flight across all models together: at most `max_in_flight` hold a
// Slot at once, at most `max_waiting` more wait for one (in arrival order), and the next one is
// refused (enter() returns false: the caller answers 429). A request holds its Slot from before it
// asks for its model (a load included) until its answer is complete; the Slot's destruction admits
// the oldest waiting request. max_in_flight 0: no cap (every request enters at once).
//
// What it does not do: HTTP, or which model a request goes to. Start callbacks run without the
// gate's lock held, on the caller of enter() or on the thread that drops the last reference to a
// Slot: they must not block (the router posts its work to its own pool). Thread-safe; the gate
// must outlive every Slot.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace ogai::serve::router {

class FlightGate;

// A request's place among those in flight; dropping the last reference frees it.
class FlightSlot {
 public:
  explicit FlightSlot(FlightGate& gate) : gate_(gate) {}
  ~FlightSlot();
  FlightSlot(const FlightSlot&) = delete;
  FlightSlot& operator=(const FlightSlot&) = delete;

 private:
  FlightGate& gate_;
};

class FlightGate {
 public:
  using Start = std::function<void(std::shared_ptr<FlightSlot>)>;

  FlightGate(std::size_t max_in_flight, std::size_t max_waiting)
      : max_in_flight_(max_in_flight), max_waiting_(max_waiting) {}
  FlightGate(const FlightGate&) = delete;
  FlightGate& operator=(const FlightGate&) = delete;

  // Runs `start` with a slot now when one is free, else queues it; false (start not run, never
  // will be) when `max_waiting` requests wait already, or after close().
  bool enter(Start start);
  // Drops the waiting requests (their start never runs) and refuses every later enter(); a slot
  // freed afterwards starts nothing. For the owner's shutdown.
  void close();

  std::size_t in_flight() const;
  std::size_t waiting() const;
  std::size_t max_in_flight() const { return max_in_flight_; }

 private:
  friend class FlightSlot;
  void leave();

  const std::size_t max_in_flight_;
  const std::size_t max_waiting_;
  mutable std::mutex mutex_;
  std::size_t in_flight_ = 0;
  bool closed_ = false;
  std::deque<Start> waiting_;
};

}  // namespace ogai::serve::router
