// Hook subscriptions: event name -> subscribers in plugin load order.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <berth/abi.h>

#include "plugin/buffer.hpp"

namespace berth::core {

class HookRegistry {
 public:
  // Only during registration (main thread); firing is read-only and may run concurrently.
  void add(const std::string& event, const std::string& owner, berth_hook_fn fn, void* user);

  // Runs every subscriber of the event in order and stops at the first that refuses: its answer
  // ({"status": N, "error": "..."}) is appended to `out` (when given) and BERTH_ERR returned.
  // When all accept, the answers some gave (Registrar::hookAnswer) are appended to `out` as
  // one JSON array, in order; nothing when none answered. An event nobody subscribed to
  // succeeds.
  int32_t fire(std::string_view event, std::string_view payload_json, berth_buffer* out) const;
  // Runs every subscriber of an event that asks nothing (the core's "pg." events): one that
  // refuses is logged and the rest still run.
  void tell(std::string_view event, std::string_view payload_json) const;

  // Plugin ids subscribed to the event, in firing order.
  std::vector<std::string> subscribers(const std::string& event) const;

  // The events somebody subscribed to that begin with `prefix`, in order.
  std::vector<std::string> eventsStartingWith(std::string_view prefix) const;

 private:
  struct Subscriber {
    std::string owner;
    berth_hook_fn fn;
    void* user;
  };
  std::map<std::string, std::vector<Subscriber>, std::less<>> by_event_;
};

}  // namespace berth::core
