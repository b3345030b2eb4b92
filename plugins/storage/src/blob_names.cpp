#include "blob_names.hpp"

#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

#include "file_paths.hpp"

namespace berth::storage {

namespace {

bool isGroupChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool isHex(std::string_view text) {
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::optional<std::string> projectIdRefusal(std::string_view project_id) {
  if (project_id.empty() || project_id.size() > 64) return "project_id must be 1 to 64 characters";
  for (char c : project_id)
    if (!isGroupChar(c)) return "project_id may contain only letters, digits, '-' and '_'";
  return std::nullopt;
}

std::optional<std::string> spaceRefusal(std::string_view space) {
  bool ok = !space.empty() && space.size() <= 32 && space[0] >= 'a' && space[0] <= 'z';
  for (char c : space)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
  if (!ok) return "space must be 1 to 32 of [a-z0-9_-], starting with a letter";
  return std::nullopt;
}

std::optional<std::string> keyRefusal(std::string_view key) {
  if (key.empty()) return "key cannot be empty";
  if (key.size() > kMaxKeyBytes)
    return "key can be at most " + std::to_string(kMaxKeyBytes) + " bytes";
  if (key.find('\0') != std::string_view::npos) return "key cannot contain a NUL byte";
  if (!isUtf8(key)) return "key must be UTF-8 text";
  return std::nullopt;
}

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
