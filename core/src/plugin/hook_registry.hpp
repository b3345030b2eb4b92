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

  // Plugin ids subscribed to the event, in firing order.
  std::vector<std::string> subscribers(const std::string& event) const;

 private:
  struct Subscriber {
    std::string owner;
    berth_hook_fn fn;
    void* user;
  };
  std::map<std::string, std::vector<Subscriber>, std::less<>> by_event_;
};

}  // namespace berth::core
