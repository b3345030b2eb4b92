// SPDX-License-Identifier: MIT
/** @file
 *  The thinnest layer over abi.h: the host handle pair, berth_str conversions and an owned
 *  core buffer. Everything else in the SDK builds on these.
 *
 *  The SDK headers are compiled into each plugin (C++17 or later); only abi.h types cross into
 *  the core.
 */
#ifndef BERTH_HOST_REF_HPP
#define BERTH_HOST_REF_HPP

#include <berth/abi.h>

#include <optional>
#include <string>
#include <string_view>

/** The ABI these headers were written for. abi.h and the C++ headers must come from the same
 *  SDK: a plugin built with a mixed installation would describe itself with one version and
 *  behave like another. */
#define BERTH_SDK_ABI_MAJOR 1u
#define BERTH_SDK_ABI_MINOR 3u
static_assert(BERTH_ABI_MAJOR == BERTH_SDK_ABI_MAJOR && BERTH_ABI_MINOR == BERTH_SDK_ABI_MINOR,
              "berth/abi.h and the berth C++ headers come from different SDK versions");

namespace berth {

/** The host a plugin talks to: its handle and the core's function table.
 *  LIFETIME: both stay valid for the life of the process once the plugin is registered. */
struct HostRef {
  berth_host* host = nullptr;
  const berth_host_api* api = nullptr;

  bool bound() const noexcept { return api != nullptr; }
};

namespace detail {

/** A view for the ABI. Never yields ptr == NULL for a present string: NULL means "absent"
 *  (SQL NULL, a missing header), and an empty std::string_view may carry a null data(). */
inline berth_str toStr(std::string_view s) noexcept {
  return berth_str{s.data() != nullptr ? s.data() : "", s.size()};
}

inline berth_str absentStr() noexcept {
  return berth_str{nullptr, 0};
}

inline bool isPresent(berth_str s) noexcept {
  return s.ptr != nullptr;
}

/** An absent view reads as empty. */
inline std::string_view toView(berth_str s) noexcept {
  return s.ptr != nullptr ? std::string_view(s.ptr, s.len) : std::string_view();
}

inline std::optional<std::string> toOptional(berth_str s) {
  if (s.ptr == nullptr) return std::nullopt;
  return std::string(s.ptr, s.len);
}

/** A core-owned buffer, freed with the core's own function (whoever allocates frees). */
class Buffer {
 public:
  explicit Buffer(const berth_host_api* api) : api_(api), buffer_(api->buffer_new()) {}
  ~Buffer() {
    if (buffer_ != nullptr) api_->buffer_free(buffer_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  berth_buffer* get() const noexcept { return buffer_; }
  std::string_view view() const noexcept { return toView(api_->buffer_view(buffer_)); }

 private:
  const berth_host_api* api_;
  berth_buffer* buffer_;
};

/** Appends text to a buffer the core handed to a callback. */
inline void append(const berth_host_api* api, berth_buffer* out, std::string_view text) {
  if (out != nullptr) api->buffer_append(out, toStr(text));
}

/** Writes a log line through the core without throwing (used on error paths). */
inline void logNoThrow(const HostRef& host, berth_log_level level, std::string_view request_id,
                       std::string_view message) noexcept {
  if (host.api == nullptr || host.api->log == nullptr) return;
  host.api->log(host.host, level, request_id.empty() ? absentStr() : toStr(request_id), absentStr(),
                toStr(message));
}

}  // namespace detail
}  // namespace berth

#endif  // BERTH_HOST_REF_HPP
