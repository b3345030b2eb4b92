/** Percent-decoding of URL parts, header-only (no ABI), written once: the core decodes request
 *  paths and queries with it, berth::testing::FakeHost decodes them the same way, and a plugin
 *  that reads a raw path (or a URL of its own) decodes it with the same rule.
 *
 *  The rule: "%" and two hex digits (either case) is that byte; anything else is itself. A
 *  malformed escape ("%4" at the end, "%zz") refuses the whole text: nothing comes back. The
 *  variants a caller may ask for are named in PercentDecoding. */
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

namespace detail {
inline int hexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace detail

/** How percentDecode reads what the plain rule does not settle. Every member is off by default
 *  (a request path as the core decodes it). */
struct PercentDecoding {
  /** A query or a form body (application/x-www-form-urlencoded): '+' is a space. */
  bool plus_is_space = false;
  /** A path that names a file: a NUL byte, sent as "%00" or as itself, refuses the text, as a
   *  malformed escape does. */
  bool refuse_nul = false;
  /** A URL read the way libpq reads one: a malformed escape stays as written and the rest is
   *  decoded, so something always comes back. */
  bool keep_malformed = false;
};

/** The decoded text; nothing for a malformed escape (unless how.keep_malformed) or, with
 *  how.refuse_nul, for a NUL. */
inline std::optional<std::string> percentDecode(std::string_view in, PercentDecoding how = {}) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      const int hi = i + 2 < in.size() ? detail::hexDigitValue(in[i + 1]) : -1;
      const int lo = i + 2 < in.size() ? detail::hexDigitValue(in[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        if (!how.keep_malformed) return std::nullopt;
        out.push_back(c);
        continue;
      }
      const char byte = static_cast<char>(hi * 16 + lo);
      if (byte == '\0' && how.refuse_nul) return std::nullopt;
      out.push_back(byte);
      i += 2;
    } else if (c == '\0' && how.refuse_nul) {
      return std::nullopt;
    } else if (c == '+' && how.plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/** percentDecode(text, true) reads a query's part, as it always has. */
inline std::optional<std::string> percentDecode(std::string_view in, bool plus_is_space) {
  PercentDecoding how;
  how.plus_is_space = plus_is_space;
  return percentDecode(in, how);
}

/** A request's path as the core hands it to handlers (Request::path()): decoded, or exactly as
 *  sent when it holds a malformed escape. */
inline std::string requestPathDecoded(std::string_view raw_path) {
  std::optional<std::string> decoded = percentDecode(raw_path);
  return decoded ? std::move(*decoded) : std::string(raw_path);
}

/** A request's query as the core hands it to handlers (Request::queryParams()): split on '&'
 *  (empty parts skipped) and on a part's first '='; the name and the value each decoded with
 *  '+' as a space, or each kept exactly as sent (a '+' too) when it holds a malformed escape. */
inline std::vector<std::pair<std::string, std::string>> requestQueryDecoded(
    std::string_view query) {
  PercentDecoding how;
  how.plus_is_space = true;
  auto decodedOrSent = [&how](std::string_view text) {
    std::optional<std::string> decoded = percentDecode(text, how);
    return decoded ? std::move(*decoded) : std::string(text);
  };
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view part = query.substr(start, end - start);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string_view name = part.substr(0, eq);
      std::string_view value =
          eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
      out.emplace_back(decodedOrSent(name), decodedOrSent(value));
    }
    start = end + 1;
  }
  return out;
}

}  // namespace berth
