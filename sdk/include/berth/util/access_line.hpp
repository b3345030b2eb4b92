/** One line of the edge's access log, the payload of the "edge.access" event, header-only (no
 *  ABI). nginx writes each line as a flat JSON object (log_format escape=json):
 *    {"request_id":"...","host":"...","method":"GET","path":"/a?b","status":200,
 *     "seconds":0.002,"bytes":1024,"edge":"project","remote":"127.0.0.1","at":1795354560.046}
 *  A busy edge writes tens of thousands a second, and a general JSON parser building a DOM for
 *  each cost berthd more than everything else it does per proxied request; this reads the flat
 *  form in one pass. Subscribe with Registrar::hookText to get the line unparsed. */
#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace berth {

struct AccessLine {
  std::string request_id;
  std::string host;
  std::string method;
  std::string path;  // with the query string
  int status = 0;
  double seconds = 0;  // request time
  uint64_t bytes_sent = 0;
  std::string edge;  // "project" or "api"
  std::string remote;
  int64_t at = 0;  // Unix seconds
};

namespace detail {

/** Reads a flat JSON object of string and number members. */
class FlatJsonReader {
 public:
  explicit FlatJsonReader(std::string_view text) : text_(text) {}

  template <class Member>
  bool read(Member&& member) {
    skipSpace();
    if (!take('{')) return false;
    skipSpace();
    if (take('}')) return atEnd();
    std::string key, value;
    while (true) {
      skipSpace();
      if (!string(key)) return false;
      skipSpace();
      if (!take(':')) return false;
      skipSpace();
      bool quoted = peek() == '"';
      if (quoted ? !string(value) : !bare(value)) return false;
      member(key, value, quoted);
      skipSpace();
      if (take(',')) continue;
      if (take('}')) return atEnd();
      return false;
    }
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool take(char c) {
    if (peek() != c || pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\n'))
      ++pos_;
  }
  bool atEnd() {
    skipSpace();
    return pos_ == text_.size();
  }

  // A number, true, false or null, as its text.
  bool bare(std::string& out) {
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' ||
                c == '.' || c == 'E';
      if (!ok) break;
      ++pos_;
    }
    out.assign(text_.substr(start, pos_ - start));
    return !out.empty();
  }

  bool string(std::string& out) {
    out.clear();
    if (!take('"')) return false;
    while (pos_ < text_.size()) {
      size_t plain = pos_;
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\\' &&
             static_cast<unsigned char>(text_[pos_]) >= 0x20)
        ++pos_;
      out.append(text_.substr(plain, pos_ - plain));
      if (pos_ >= text_.size()) return false;
      char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\') return false;  // a raw control character
      if (pos_ >= text_.size()) return false;
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u':
          if (!codePoint(out)) return false;
          break;
        default:
          return false;
      }
    }
    return false;
  }

  bool hex4(uint32_t& out) {
    if (pos_ + 4 > text_.size()) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      int v = (c >= '0' && c <= '9')   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (v < 0) return false;
      out = out * 16 + static_cast<uint32_t>(v);
    }
    return true;
  }

  // \uXXXX (a surrogate pair as two), appended as UTF-8.
  bool codePoint(std::string& out) {
    uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low = 0;
      if (!take('\\') || !take('u') || !hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return false;
    }
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

template <class Number>
bool parseNumber(const std::string& text, Number& out) {
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, out);
  return error == std::errc() && ptr == end;
}

}  // namespace detail

/** The line's fields; false when it is not a JSON object, a member has the wrong type (a
 *  time or duration that is not a finite number, an "at" beyond int64_t included), or it
 *  has no request id. Unknown members are ignored, missing ones keep their defaults. */
inline bool parseAccessLine(std::string_view line, AccessLine& out) {
  AccessLine entry;
  bool typed = true;
  auto text = [&](std::string& field, std::string& value, bool quoted) {
    typed = typed && quoted;
    field = std::move(value);
  };
  auto number = [&](auto& field, const std::string& value, bool quoted) {
    typed = typed && !quoted && detail::parseNumber(value, field);
  };
  detail::FlatJsonReader reader(line);
  bool read = reader.read([&](const std::string& key, std::string& value, bool quoted) {
    if (key == "request_id")
      text(entry.request_id, value, quoted);
    else if (key == "host")
      text(entry.host, value, quoted);
    else if (key == "method")
      text(entry.method, value, quoted);
    else if (key == "path")
      text(entry.path, value, quoted);
    else if (key == "edge")
      text(entry.edge, value, quoted);
    else if (key == "remote")
      text(entry.remote, value, quoted);
    else if (key == "status")
      number(entry.status, value, quoted);
    else if (key == "seconds") {
      number(entry.seconds, value, quoted);
      typed = typed && std::isfinite(entry.seconds);  // from_chars reads "nan" and "inf" too
    } else if (key == "bytes")
      number(entry.bytes_sent, value, quoted);
    else if (key == "at") {
      double at = 0;
      number(at, value, quoted);
      // Converting a time past int64_t's range (or nan) is undefined behaviour; nginx's $msec
      // is never near it, so such a line is not nginx's.
      if (std::fabs(at) < 9.0e18)
        entry.at = static_cast<int64_t>(std::floor(at));
      else
        typed = false;
    }
  });
  if (!read || !typed || entry.request_id.empty()) return false;
  out = std::move(entry);
  return true;
}

}  // namespace berth
