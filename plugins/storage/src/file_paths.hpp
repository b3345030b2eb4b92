// The rules for a stored file's path (the {path} of /projects/{name}/files/{path}) and its
// spelling in URLs. A path is refused before anything is stored, with a reason for a person.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace berth::storage {

inline constexpr size_t kMaxPathBytes = 1024;

// Why `path` (already percent-decoded) cannot name a stored file, in the words the API answers
// with; std::nullopt when it can.
std::optional<std::string> pathRefusal(std::string_view path);

// True for well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool isUtf8(std::string_view text);

// The path as it appears in a URL: every byte outside [A-Za-z0-9-._~/] percent-encoded, so
// that `a/b c/ü.txt` reads `a/b%20c/%C3%BC.txt` and decodes back to itself.
std::string urlPath(std::string_view path);

// The file name part of a path (after the last '/').
std::string_view baseName(std::string_view path);

}  // namespace berth::storage
