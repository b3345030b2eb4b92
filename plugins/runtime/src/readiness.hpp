// Is an app ready: does it accept connections on its loopback port, or (when a readiness path
// is configured) does that path answer with a status below 400.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace berth::runtime {

// A free TCP port on 127.0.0.1 (bind to 0, read it, close). Another process could take it
// before the app binds; the start then fails and is retried by the next request.
std::uint16_t freeLoopbackPort();

bool acceptsConnections(std::uint16_t port);

// The HTTP status of GET `path` on 127.0.0.1:port, nullopt when nothing answered in `timeout`.
std::optional<int> httpStatus(std::uint16_t port, const std::string& path,
                              std::chrono::milliseconds timeout);

}  // namespace berth::runtime
