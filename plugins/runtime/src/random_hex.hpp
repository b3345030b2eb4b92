// Random names for folders that must not collide (a release being built, a tree being built):
// `bytes` bytes from the system's random device, as lower-case hex.
#pragma once
#include <cstddef>
#include <random>
#include <string>

namespace berth::runtime {

inline std::string randomHex(std::size_t bytes) {
  std::random_device device;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    const unsigned byte = device() & 0xFF;
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xF]);
  }
  return out;
}

}  // namespace berth::runtime
