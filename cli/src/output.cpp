#include "output.hpp"

#include <unistd.h>
#include <berth/common/utf8.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>

namespace berth::client {

Output Output::forProcess(bool json) {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  bool allowed = !(no_color && *no_color) && !(term && std::string(term) == "dumb");
  return Output(json, allowed && ::isatty(STDOUT_FILENO), allowed && ::isatty(STDERR_FILENO));
}

std::string Output::paint(const char* code, const std::string& s, bool on) {
  if (!on) return s;
  return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
}

std::string Output::status(const std::string& s) const {
  if (s == "live" || s == "running" || s == "installed") return green(s);
  if (s == "failed") return red(s);
  if (s == "building" || s == "installing") return yellow(s);
  return s;
}

void Output::printJson(const nlohmann::json& j) const {
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::cout.flush();
}

void Output::printLine(const nlohmann::json& j) const {
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::cout.flush();
}

void Output::line(const std::string& text) const {
  std::cout << text << "\n";
  std::cout.flush();
}

void Output::note(const std::string& text) const {
  std::cout.flush();
  std::cerr << text << "\n";
}

void Output::error(const std::string& text) const {
  std::cout.flush();
  std::cerr << paint("31", "error:", color_err_) << " " << text << "\n";
}

// Display width of a cell: its code points, which is close enough for names and values, not
// counting colour codes (ESC up to and including the next 'm').
static size_t width(const std::string& cell) {
  std::string plain;
  bool esc = false;
  for (char c : cell) {
    if (c == '\x1b')
      esc = true;
    else if (esc && c == 'm')
      esc = false;
    else if (!esc)
      plain += c;
  }
  return common::utf8Characters(plain);
}

void Output::table(const std::vector<std::string>& header,
                   const std::vector<std::vector<std::string>>& rows) const {
  std::vector<size_t> widths(header.size(), 0);
  // Headers are measured as they are (they carry no colour codes), rows without colour codes.
  for (size_t i = 0; i < header.size(); ++i) widths[i] = common::utf8Characters(header[i]);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], width(r[i]));
  auto print = [&](const std::vector<std::string>& cells, bool head) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string& cell = cells[i];
      const size_t w = width(cell);
      out += head ? bold(cell) : cell;
      if (i + 1 < cells.size()) out += std::string(widths[i] - std::min(w, widths[i]) + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::cout << out << "\n";
  };
  print(header, true);
  for (const auto& r : rows) print(r, false);
  std::cout.flush();
}

std::string formatTime(const nlohmann::json& unix_seconds) {
  if (!unix_seconds.is_number()) return "-";
  std::time_t t = unix_seconds.get<int64_t>();
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string cellText(const nlohmann::json& value) {
  if (value.is_null()) return "NULL";
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace berth::client
