#include "schedule_rules.hpp"

#include <openssl/rand.h>
#include <berth/common/utf8.hpp>

#include <stdexcept>

namespace berth::scheduler {

std::optional<std::string> nameProblem(std::string_view name) {
  if (name.empty()) return "a schedule needs a name";
  if (common::utf8Characters(name) > kMaxNameChars)
    return "a schedule's name is at most " + std::to_string(kMaxNameChars) + " characters";
  return std::nullopt;
}

std::optional<std::string> pathProblem(std::string_view path) {
  if (path.empty() || path.front() != '/') return "the path must start with /";
  if (path.size() > kMaxPathBytes)
    return "the path is at most " + std::to_string(kMaxPathBytes) + " characters";
  for (unsigned char c : path) {
    if (c <= 0x20 || c >= 0x7f)
      return "the path may hold only printable ASCII without spaces; percent-encode other "
             "characters (a space is %20)";
    if (c == '#') return "the path cannot hold a # fragment: fragments are never sent";
  }
  return std::nullopt;
}

std::string newScheduleId() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("the random generator failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(48);
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  return id;
}

bool isScheduleId(std::string_view text) {
  if (text.size() != 48) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace berth::scheduler
