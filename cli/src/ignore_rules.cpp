#include "ignore_rules.hpp"

#include <sstream>

namespace berth::client {

namespace {

// A [...] class at pattern[i] (i at the '['); sets `next` past the ']'. Returns false when the
// class is not closed (the '[' is then a literal).
bool matchClass(std::string_view p, size_t i, char c, bool& matched, size_t& next) {
  size_t j = i + 1;
  bool negate = false;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) {
    negate = true;
    ++j;
  }
  bool found = false;
  bool first = true;
  while (j < p.size() && (p[j] != ']' || first)) {
    first = false;
    char lo = p[j];
    if (lo == '\\' && j + 1 < p.size()) lo = p[++j];
    char hi = lo;
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      hi = p[j + 2];
      j += 2;
    }
    if (c >= lo && c <= hi) found = true;
    ++j;
  }
  if (j >= p.size()) return false;
  matched = (found != negate) && c != '/';
  next = j + 1;
  return true;
}

bool match(std::string_view p, std::string_view t) {
  size_t pi = 0, ti = 0;
  while (pi < p.size()) {
    char pc = p[pi];
    if (pc == '*') {
      bool dbl = pi + 1 < p.size() && p[pi + 1] == '*';
      if (dbl) {
        // "**/" matches zero or more whole folders; a trailing "**" matches everything left.
        std::string_view rest = p.substr(pi + 2);
        if (rest.empty()) return true;
        if (rest[0] == '/') {
          rest.remove_prefix(1);
          std::string_view tail = t.substr(ti);
          if (match(rest, tail)) return true;
          for (size_t k = 0; k < tail.size(); ++k)
            if (tail[k] == '/' && match(rest, tail.substr(k + 1))) return true;
          return false;
        }
        // "**" inside a segment acts as "*".
        pi += 1;
      }
      std::string_view rest = p.substr(pi + 1);
      for (size_t k = ti; k <= t.size(); ++k) {
        if (match(rest, t.substr(k))) return true;
        if (k < t.size() && t[k] == '/') break;
      }
      return false;
    }
    if (ti >= t.size()) return false;
    if (pc == '?') {
      if (t[ti] == '/') return false;
      ++pi;
      ++ti;
      continue;
    }
    if (pc == '[') {
      bool matched = false;
      size_t next = 0;
      if (matchClass(p, pi, t[ti], matched, next)) {
        if (!matched) return false;
        pi = next;
        ++ti;
        continue;
      }
    }
    if (pc == '\\' && pi + 1 < p.size()) pc = p[++pi];
    if (pc != t[ti]) return false;
    ++pi;
    ++ti;
  }
  return ti == t.size();
}

}  // namespace

bool globMatch(std::string_view pattern, std::string_view path) {
  return match(pattern, path);
}

void IgnoreRules::add(const std::string& text, const std::string& base) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Trailing spaces are dropped unless escaped with a backslash.
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\'))
      line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Rule r;
    r.base = base;
    if (line[0] == '!') {
      r.negate = true;
      line.erase(0, 1);
    } else if (line.rfind("\\!", 0) == 0 || line.rfind("\\#", 0) == 0) {
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      r.dir_only = true;
      while (!line.empty() && line.back() == '/') line.pop_back();
    }
    if (line.empty()) continue;
    if (line[0] == '/') {
      r.anchored = true;
      line.erase(0, 1);
    }
    if (line.find('/') != std::string::npos) r.anchored = true;
    r.pattern = line;
    rules_.push_back(r);
  }
}

bool IgnoreRules::ignored(const std::string& path, bool is_dir) const {
  bool out = false;
  for (const auto& r : rules_) {
    if (r.dir_only && !is_dir) continue;
    std::string_view sub = path;
    if (!r.base.empty()) {
      if (path.size() <= r.base.size() || path.compare(0, r.base.size(), r.base) != 0 ||
          path[r.base.size()] != '/')
        continue;
      sub.remove_prefix(r.base.size() + 1);
    }
    bool hit;
    if (r.anchored) {
      hit = globMatch(r.pattern, sub);
    } else {
      auto slash = sub.rfind('/');
      hit = globMatch(r.pattern, slash == std::string_view::npos ? sub : sub.substr(slash + 1));
    }
    if (hit) out = !r.negate;
  }
  return out;
}

}  // namespace berth::client
