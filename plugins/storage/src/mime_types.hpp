// Content types by file name extension, read from a mime.types file (Debian's media-types
// package installs /etc/mime.types: "type ext ext ..." lines, '#' comments).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace berth::storage {

inline constexpr std::string_view kFallbackContentType = "application/octet-stream";

class MimeTable {
 public:
  // Parses a mime.types file. @throw std::runtime_error when it cannot be read.
  static MimeTable fromFile(const std::string& path);
  // Parses mime.types text.
  static MimeTable fromText(std::string_view text);
  // A small table of the most common web types, for a system without mime.types.
  static MimeTable builtIn();

  // The content type for a file name or path: by the extension after the last '.' of the
  // last segment, compared without case; application/octet-stream when there is none (a
  // name like ".env" has no extension) or the table does not know it.
  std::string typeOf(std::string_view file_name) const;

  size_t size() const { return by_extension_.size(); }

  // The table as an nginx `types { }` block, for the edge to type the files it sends itself
  // exactly as typeOf() would. Entries nginx could not read as one token are left out.
  std::string nginxTypes() const;

 private:
  std::unordered_map<std::string, std::string> by_extension_;
};

}  // namespace berth::storage
