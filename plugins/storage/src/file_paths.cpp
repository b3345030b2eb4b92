#include "file_paths.hpp"

#include "berth/common/utf8.hpp"

namespace berth::storage {

bool isUtf8(std::string_view text) {
  return !common::firstInvalidUtf8(text).has_value();
}

std::optional<std::string> pathRefusal(std::string_view path) {
  if (path.empty()) return "a file path cannot be empty";
  if (path.size() > kMaxPathBytes)
    return "a file path can be at most " + std::to_string(kMaxPathBytes) + " bytes";
  if (path.find('\0') != std::string_view::npos) return "a file path cannot contain a NUL byte";
  if (path.find('\\') != std::string_view::npos) return "a file path cannot contain a backslash";
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return "a file path cannot contain control characters";
  }
  if (!isUtf8(path)) return "a file path must be UTF-8 text";
  size_t start = 0;
  while (true) {
    size_t end = path.find('/', start);
    std::string_view segment =
        path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (segment.empty())
      return "a file path cannot have empty segments (no leading, trailing or double /)";
    if (segment == "." || segment == "..") return "a file path cannot have . or .. segments";
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

std::string urlPath(std::string_view path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    bool plain = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                 (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' ||
                 byte == '~' || byte == '/';
    if (plain) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

std::string_view baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace berth::storage
