// Percent-decoding of a request's raw path, shared by the static and PHP path choices.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::runtime {

// The decoded path; nothing for a malformed escape ("%4", "%zz") or a NUL anywhere.
std::optional<std::string> percentDecodePath(std::string_view raw);

}  // namespace berth::runtime
