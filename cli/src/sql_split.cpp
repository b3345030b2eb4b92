#include "sql_split.hpp"

#include <berth/common/text.hpp>

#include <cctype>

namespace berth::client {

namespace {

struct Piece {
  std::string text;
  bool has_code = false;
};

// Scans the text and calls back at each ending ;. Returns the state at the end: whether it was
// inside a quote or comment, and the last piece.
struct Scan {
  std::vector<Piece> pieces;
  Piece current;
  bool open = false;  // inside a quote or a comment at the end
};

bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         (static_cast<unsigned char>(c) & 0x80);
}

Scan scan(const std::string& s) {
  Scan out;
  size_t i = 0, n = s.size();
  auto emit = [&] {
    out.pieces.push_back(out.current);
    out.current = Piece();
  };
  while (i < n) {
    char c = s[i];
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {
      while (i < n && s[i] != '\n') out.current.text += s[i++];
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      int depth = 0;
      out.open = true;
      while (i < n) {
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
          ++depth;
          out.current.text += "/*";
          i += 2;
        } else if (s[i] == '*' && i + 1 < n && s[i + 1] == '/') {
          --depth;
          out.current.text += "*/";
          i += 2;
          if (depth == 0) {
            out.open = false;
            break;
          }
        } else {
          out.current.text += s[i++];
        }
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      // E'...' strings take backslash escapes; standard strings and identifiers do not.
      bool escapes = c == '\'' && !out.current.text.empty() &&
                     (out.current.text.back() == 'E' || out.current.text.back() == 'e') &&
                     (out.current.text.size() < 2 ||
                      !identChar(out.current.text[out.current.text.size() - 2]));
      out.current.has_code = true;
      out.current.text += s[i++];
      out.open = true;
      while (i < n) {
        char d = s[i];
        out.current.text += d;
        ++i;
        if (escapes && d == '\\' && i < n) {
          out.current.text += s[i++];
          continue;
        }
        if (d == c) {
          if (i < n && s[i] == c) {  // a doubled quote stays inside
            out.current.text += s[i++];
            continue;
          }
          out.open = false;
          break;
        }
      }
      continue;
    }
    if (c == '$' && (out.current.text.empty() || !identChar(out.current.text.back()))) {
      size_t j = i + 1;
      while (j < n && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_') &&
             !std::isdigit(static_cast<unsigned char>(s[i + 1])))
        ++j;
      if (j < n && s[j] == '$') {
        std::string tag = s.substr(i, j - i + 1);
        out.current.has_code = true;
        out.current.text += tag;
        i = j + 1;
        auto end = s.find(tag, i);
        if (end == std::string::npos) {
          out.current.text += s.substr(i);
          out.open = true;
          return out;
        }
        out.current.text += s.substr(i, end + tag.size() - i);
        i = end + tag.size();
        continue;
      }
    }
    if (c == ';') {
      ++i;
      emit();
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) out.current.has_code = true;
    out.current.text += c;
    ++i;
  }
  return out;
}

}  // namespace

std::vector<std::string> splitStatements(const std::string& sql) {
  Scan s = scan(sql);
  s.pieces.push_back(s.current);
  std::vector<std::string> out;
  for (const auto& p : s.pieces)
    if (p.has_code) out.push_back(common::trimmed(p.text));
  return out;
}

bool endsStatement(const std::string& sql) {
  Scan s = scan(sql);
  if (s.open) return false;
  return !s.current.has_code;
}

}  // namespace berth::client
