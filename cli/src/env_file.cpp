#include "env_file.hpp"

#include <cctype>
#include <map>
#include <stdexcept>

#include "errors.hpp"

namespace berth::client {

static std::invalid_argument bad(int line, const std::string& why) {
  return std::invalid_argument("line " + std::to_string(line) + ": " + why);
}

std::vector<EnvEntry> parseEnvFile(const std::string& text) {
  std::vector<EnvEntry> out;
  std::map<std::string, size_t> index;
  size_t i = 0;
  int line = 1;
  auto at_end = [&] { return i >= text.size(); };
  auto skip_blanks = [&] {
    while (!at_end() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  auto skip_to_line_end = [&] {
    while (!at_end() && text[i] != '\n') ++i;
  };
  while (!at_end()) {
    skip_blanks();
    if (at_end()) break;
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '#') {
      skip_to_line_end();
      if (!at_end()) ++i;
      ++line;
      continue;
    }
    int start_line = line;
    if (text.compare(i, 7, "export ") == 0 || text.compare(i, 7, "export\t") == 0) {
      i += 7;
      skip_blanks();
    }
    size_t name_start = i;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                         text[i] == '.' || text[i] == '-'))
      ++i;
    std::string name = text.substr(name_start, i - name_start);
    skip_blanks();
    if (name.empty() || at_end() || text[i] != '=') throw bad(start_line, "expected NAME=value");
    ++i;
    skip_blanks();
    std::string value;
    if (!at_end() && (text[i] == '"' || text[i] == '\'')) {
      char quote = text[i++];
      bool closed = false;
      while (!at_end()) {
        char c = text[i++];
        if (c == '\n') ++line;
        if (c == quote) {
          closed = true;
          break;
        }
        if (quote == '"' && c == '\\' && !at_end()) {
          char e = text[i++];
          switch (e) {
            case 'n':
              value += '\n';
              break;
            case 't':
              value += '\t';
              break;
            case 'r':
              value += '\r';
              break;
            case '"':
              value += '"';
              break;
            case '\\':
              value += '\\';
              break;
            case '$':
              value += '$';
              break;
            default:
              value += '\\';
              value += e;
              break;
          }
          continue;
        }
        value += c;
      }
      if (!closed) throw bad(start_line, std::string("the value's ") + quote + " is never closed");
      skip_blanks();
      if (!at_end() && text[i] != '\n' && text[i] != '\r' && text[i] != '#')
        throw bad(line, "unexpected text after the quoted value");
      skip_to_line_end();
    } else {
      size_t v = i;
      while (!at_end() && text[i] != '\n') {
        // " #" starts a comment; a # inside a word (a URL's fragment) does not.
        if (text[i] == '#' && i > v && (text[i - 1] == ' ' || text[i - 1] == '\t')) break;
        ++i;
      }
      value = text.substr(v, i - v);
      skip_to_line_end();
      while (!value.empty() &&
             (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
        value.pop_back();
    }
    if (!at_end()) ++i;  // the newline
    ++line;
    if (auto it = index.find(name); it != index.end()) {
      out[it->second].value = value;
      out[it->second].line = start_line;
    } else {
      index[name] = out.size();
      out.push_back({name, value, start_line});
    }
  }
  return out;
}

std::pair<std::string, std::string> splitAssignment(const std::string& word) {
  auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) throw usageError("expected NAME=value, got " + word);
  return {word.substr(0, eq), word.substr(eq + 1)};
}

}  // namespace berth::client
