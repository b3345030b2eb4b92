// The gateway's answer for a static release: which file of the release a request path names
// (index.html for folders), or a redirect adding the folder's slash, or nothing. The edge then
// sends the file (Responder::file: sendfile, Range, ETag/304).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace berth::runtime {

struct StaticAnswer {
  enum class Kind { File, Redirect, NotFound } kind = Kind::NotFound;
  std::string path;          // File: absolute path inside the release
  std::string content_type;  // File
  std::string location;      // Redirect (301): the request path with a slash added
};

// `request_path` is the raw path of the request (percent-encoded, without the query).
// Not found: bad percent-encoding, a NUL, a ".." part, a hidden part (".env", ".git"; but
// ".well-known" is served), anything resolving outside the release, a missing file.
StaticAnswer staticFileFor(const std::filesystem::path& release_dir, std::string_view request_path);

// Content type from the file name's extension (a small table of web types; the rest is
// application/octet-stream). Text types carry "; charset=utf-8".
std::string contentTypeFor(std::string_view file_name);

}  // namespace berth::runtime
