// .env files for `berth secrets import`, and the K=V words of `berth secrets set`.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace berth::client {

struct EnvEntry {
  std::string name, value;
  int line = 0;
};

// Lines of NAME=value: blank lines and # comments skipped, an optional `export ` in front,
// 'single quotes' taken as written, "double quotes" with \n \t \" \\ escapes (both may span
// lines), an unquoted value up to a " #" comment with its spaces trimmed. A later line wins over
// an earlier one of the same name. Throws std::invalid_argument("line N: ...").
std::vector<EnvEntry> parseEnvFile(const std::string& text);

// "NAME=value" (the value may hold '=' and be empty); throws a usage error without '='.
std::pair<std::string, std::string> splitAssignment(const std::string& word);

}  // namespace berth::client
