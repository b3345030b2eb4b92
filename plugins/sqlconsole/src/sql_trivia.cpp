#include "sql_trivia.hpp"

#include <algorithm>
#include <cstring>

namespace berth::sqlconsole {
namespace {

// PostgreSQL 15's scanner, which libpg_query and the server are: \v is not whitespace there
// (16 made it so). Skipping it here let an import run a script /sql refuses.
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

}  // namespace

TriviaEnd skipTrivia(std::string_view text, size_t pos, bool skip_semicolons) {
  const size_t n = text.size();
  while (pos < n) {
    const char c = text[pos];
    if (isSpace(c) || (skip_semicolons && c == ';')) {
      ++pos;
    } else if (c == '-' && pos + 1 < n && text[pos + 1] == '-') {
      // To the end of the line; a comment cut off by the end of text may continue in more text.
      const size_t eol = text.find_first_of("\n\r", pos + 2);
      if (eol == std::string_view::npos) return {pos, false};
      pos = eol + 1;
    } else if (c == '/' && pos + 1 < n && text[pos + 1] == '*') {
      const size_t opener = pos;
      int depth = 1;
      pos += 2;
      while (depth > 0) {
        if (pos + 1 >= n) return {opener, false};
        if (text[pos] == '/' && text[pos + 1] == '*') {
          ++depth;
          pos += 2;
        } else if (text[pos] == '*' && text[pos + 1] == '/') {
          --depth;
          pos += 2;
        } else {
          ++pos;
        }
      }
    } else if ((c == '-' || c == '/') && pos + 1 == n) {
      // Could be the first half of a comment opener; more text decides.
      return {pos, false};
    } else {
      break;
    }
  }
  return {pos, true};
}

size_t trimWhitespaceRight(std::string_view text, size_t end) {
  while (end > 0 && isSpace(text[end - 1])) --end;
  return end;
}

size_t countNewlines(std::string_view text) {
  // memchr is vectorised; std::count is not always.
  size_t lines = 0;
  const char* p = text.data();
  const char* const stop = p + text.size();
  while (p < stop) {
    const void* hit = std::memchr(p, '\n', static_cast<size_t>(stop - p));
    if (!hit) break;
    ++lines;
    p = static_cast<const char*>(hit) + 1;
  }
  return lines;
}

}  // namespace berth::sqlconsole
