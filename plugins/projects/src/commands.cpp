#include "commands.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace berth::projects {
namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view firstWord(std::string_view cmd) {
  while (!cmd.empty() && isBlank(cmd.front())) cmd.remove_prefix(1);
  std::size_t end = 0;
  while (end < cmd.size() && !isBlank(cmd[end])) ++end;
  return cmd.substr(0, end);
}

bool isNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isNameChar(char c) {
  return isNameStart(c) || isDigit(c);
}

// A shell would treat "NAME=value cmd" as an environment assignment; run directly it would be
// executed as a program called "NAME=value", which is never what was meant.
bool isAssignment(std::string_view word) {
  const auto eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0 || !isNameStart(word.front())) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), isNameChar);
}

// "python3.12", "php8.2": a known prefix followed only by a version.
bool isVersioned(std::string_view word, std::string_view prefix) {
  if (!word.starts_with(prefix)) return false;
  word.remove_prefix(prefix.size());
  return std::all_of(word.begin(), word.end(), [](char c) { return isDigit(c) || c == '.'; });
}

}  // namespace

std::optional<std::string> commandProblem(std::string_view cmd) {
  // Checked before the shell characters: a second line would be lost, not merely unparsed.
  if (cmd.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos)
    return "the start command must be one line";
  constexpr std::string_view kShellChars = "|&;<>`()'\"*";
  if (const auto at = cmd.find_first_of(kShellChars); at != std::string_view::npos)
    return "the start command is run directly, not through a shell, so it cannot contain " +
           std::string(1, cmd[at]);
  if (isAssignment(firstWord(cmd)))
    return "the start command is run directly, so it cannot begin with an assignment like "
           "NAME=value; set a secret instead";
  return std::nullopt;
}

std::optional<std::string> guessRuntime(std::string_view cmd) {
  std::string_view word = firstWord(cmd);
  if (const auto slash = word.rfind('/'); slash != std::string_view::npos)
    word.remove_prefix(slash + 1);
  if (word.empty()) return std::nullopt;

  using Entry = std::pair<std::string_view, std::string_view>;
  static constexpr std::array kExact = {
      Entry{"node", "Node"},          Entry{"nodejs", "Node"},
      Entry{"npm", "Node"},           Entry{"npx", "Node"},
      Entry{"yarn", "Node"},          Entry{"pnpm", "Node"},
      Entry{"bun", "Node"},           Entry{"deno", "Node"},
      Entry{"pip", "Python"},         Entry{"pip3", "Python"},
      Entry{"gunicorn", "Python"},    Entry{"uvicorn", "Python"},
      Entry{"flask", "Python"},       Entry{"django-admin", "Python"},
      Entry{"ruby", "Ruby"},          Entry{"bundle", "Ruby"},
      Entry{"rails", "Ruby"},         Entry{"rackup", "Ruby"},
      Entry{"puma", "Ruby"},          Entry{"go", "Go"},
      Entry{"java", "Java"},          Entry{"mvn", "Java"},
      Entry{"gradle", "Java"},        Entry{"gradlew", "Java"},
      Entry{"cargo", "Rust"},         Entry{"rustc", "Rust"},
      Entry{"static", "Static"},      Entry{"serve", "Static"},
      Entry{"http-server", "Static"}, Entry{"caddy", "Static"},
      Entry{"nginx", "Static"},
  };
  for (const auto& [name, runtime] : kExact)
    if (word == name) return std::string(runtime);
  if (isVersioned(word, "python")) return "Python";
  // php, php-fpm, php-cgi, php8.2, php-fpm8.2: every PHP binary starts with "php".
  if (word.starts_with("php")) return "PHP";
  return std::nullopt;
}

}  // namespace berth::projects
