// SPDX-License-Identifier: MIT
/** @file
 *  The wall clock as the control plane stores it: whole Unix seconds (created_at, finished_at,
 *  heartbeats). Header-only, no ABI. */
#ifndef BERTH_UNIX_TIME_HPP
#define BERTH_UNIX_TIME_HPP

#include <chrono>
#include <cstdint>

namespace berth {

/** Seconds since the Unix epoch, now. */
inline int64_t unixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace berth

#endif  // BERTH_UNIX_TIME_HPP
