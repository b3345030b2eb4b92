// What a command prints: the API's JSON with --json, else text and aligned tables; colour only
// on a terminal and never with NO_COLOR set (https://no-color.org).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace berth::client {

class Output {
 public:
  Output(bool json, bool color_stdout, bool color_stderr)
      : json_(json), color_out_(color_stdout), color_err_(color_stderr) {}
  // From the process: isatty and NO_COLOR / TERM=dumb.
  static Output forProcess(bool json);

  bool json() const { return json_; }
  void printJson(const nlohmann::json& j) const;  // pretty, on stdout
  void printLine(const nlohmann::json& j) const;  // one line: NDJSON
  void line(const std::string& text) const;       // stdout
  void note(const std::string& text) const;       // stderr: what is going on
  void error(const std::string& text) const;      // stderr: "error: ..."
  void table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows) const;

  // Colour for stdout text (no-ops without colour).
  std::string green(const std::string& s) const { return paint("32", s, color_out_); }
  std::string red(const std::string& s) const { return paint("31", s, color_out_); }
  std::string yellow(const std::string& s) const { return paint("33", s, color_out_); }
  std::string bold(const std::string& s) const { return paint("1", s, color_out_); }
  std::string dim(const std::string& s) const { return paint("2", s, color_out_); }
  std::string status(const std::string& s) const;  // live/ready/building/failed coloured

 private:
  static std::string paint(const char* code, const std::string& s, bool on);
  bool json_, color_out_, color_err_;
};

// Unix seconds as local "YYYY-MM-DD HH:MM:SS"; "-" for null.
std::string formatTime(const nlohmann::json& unix_seconds);
// A JSON value as a table cell: strings bare, null as "NULL", others as JSON.
std::string cellText(const nlohmann::json& value);

}  // namespace berth::client
