// Conversions between the ABI's borrowed {ptr, len} views and C++ strings.
#pragma once
#include <string>
#include <string_view>

#include <berth/abi.h>

namespace berth::core {

inline constexpr berth_str kAbsent{nullptr, 0};

// An absent view reads as empty; callers that care test isAbsent first.
inline std::string_view view(berth_str s) {
  return s.ptr == nullptr ? std::string_view{} : std::string_view(s.ptr, s.len);
}
inline std::string copy(berth_str s) {
  return std::string(view(s));
}
inline bool isAbsent(berth_str s) {
  return s.ptr == nullptr;
}

// A present view of the string's bytes; valid while the string is neither changed nor freed.
inline berth_str borrow(const std::string& s) {
  return berth_str{s.data(), s.size()};
}

}  // namespace berth::core
