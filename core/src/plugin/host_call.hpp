// The barrier every trampoline runs its body behind: nothing thrown in the core reaches a
// plugin; it is logged against the plugin and becomes BERTH_ERR.
#pragma once
#include <exception>
#include <stdexcept>
#include <string_view>

#include <berth/abi.h>
#include <spdlog/common.h>

#include "plugin/plugin_state.hpp"

namespace berth::core {

void logCallFailure(berth_host& host, std::string_view call, std::string_view why) noexcept;

// A berth_log_level as spdlog's (an unknown one is info).
spdlog::level::level_enum spdlogLevel(uint32_t level);

// body returns the status to answer.
template <class Body>
int32_t guardedCall(berth_host* host, std::string_view call, Body&& body) noexcept {
  if (host == nullptr) return BERTH_ERR;
  try {
    return body();
  } catch (const std::exception& e) {
    logCallFailure(*host, call, e.what());
  } catch (...) {
    logCallFailure(*host, call, "unknown exception");
  }
  return BERTH_ERR;
}

// For calls that only make sense inside berth_plugin_register_v1. A refusal is logged and
// remembered, so registration fails even when the plugin ignores the BERTH_ERR.
template <class Body>
int32_t registrationCall(berth_host* host, std::string_view call, Body&& body) noexcept {
  if (host == nullptr) return BERTH_ERR;
  try {
    if (!host->registering)
      throw std::logic_error("registration is closed (only inside berth_plugin_register_v1)");
    body();
    return BERTH_OK;
  } catch (const std::exception& e) {
    logCallFailure(*host, call, e.what());
    if (host->registering && host->first_refusal.empty()) {
      try {
        host->first_refusal = std::string(call) + ": " + e.what();
      } catch (...) {
        // Out of memory while failing: the BERTH_ERR still tells the plugin.
      }
    }
  } catch (...) {
    logCallFailure(*host, call, "unknown exception");
  }
  return BERTH_ERR;
}

}  // namespace berth::core
