#include "blob_names.hpp"

#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace berth::storage {

namespace {

bool isHex(std::string_view text) {
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string randomHex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1)
    throw std::runtime_error("no random bytes available");
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char b : raw) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string newObjectName(std::string_view project_id) {
  return std::string(project_id) + "/" + randomHex(16);
}

std::optional<ObjectName> parseObjectName(std::string_view object) {
  size_t slash = object.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ObjectName name{std::string(object.substr(0, slash)), std::string(object.substr(slash + 1))};
  if (projectIdRefusal(name.group) || name.id.size() != 32 || !isHex(name.id)) return std::nullopt;
  return name;
}

}  // namespace berth::storage
