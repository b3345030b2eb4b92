/** @file
 *  Start commands (docs/openapi.yaml, PATCH /projects/{name}, the start-command rules): the
 *  runtime's rules, since it runs them. The projects plugin gets them through the hooks the
 *  runtime answers (plugin/start_command_hooks.cpp: projects.cmd_change.v1 refuses a PATCHed
 *  `cmd`, projects.view.v1 names a Project's `runtime`), other plugins through
 *  runtime.start_commands.v1 (<berth/services/runtime_start_commands.hpp>), so the rule and
 *  the runtime table are written once, here.
 *
 *  Commands are run directly, never through a shell: they are split on blanks into argv. */
#ifndef BERTH_RUNTIME_START_COMMANDS_HPP
#define BERTH_RUNTIME_START_COMMANDS_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::runtime {

namespace detail {

inline bool isCommandBlank(char c) {
  return c == ' ' || c == '\t';
}
inline bool isEnvNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
inline bool isAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}
inline bool isEnvNameChar(char c) {
  return isEnvNameStart(c) || isAsciiDigit(c);
}

inline std::string_view firstCommandWord(std::string_view cmd) {
  while (!cmd.empty() && isCommandBlank(cmd.front())) cmd.remove_prefix(1);
  std::size_t end = 0;
  while (end < cmd.size() && !isCommandBlank(cmd[end])) ++end;
  return cmd.substr(0, end);
}

/** "python3.12", "php8.2": a known prefix followed only by a version. */
inline bool isVersionedName(std::string_view word, std::string_view prefix) {
  if (!word.starts_with(prefix)) return false;
  word.remove_prefix(prefix.size());
  return std::all_of(word.begin(), word.end(), [](char c) { return isAsciiDigit(c) || c == '.'; });
}

}  // namespace detail

/** "NAME=value": a shell would make it an environment entry; run directly it would be taken
 *  for a program called "NAME=value", which is never what was meant. */
inline bool isEnvAssignment(std::string_view word) {
  const auto eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0 || !detail::isEnvNameStart(word.front()))
    return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq),
                     detail::isEnvNameChar);
}

/** Why a start command is refused; std::nullopt when acceptable (empty is fine). One line;
 *  none of | & ; < > ` ( ) quotes *; no leading NAME=value. */
inline std::optional<std::string> commandProblem(std::string_view cmd) {
  // Checked before the shell characters: a second line would be lost, not merely unparsed.
  if (cmd.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos)
    return "the start command must be one line";
  constexpr std::string_view kShellChars = "|&;<>`()'\"*";
  if (const auto at = cmd.find_first_of(kShellChars); at != std::string_view::npos)
    return "the start command is run directly, not through a shell, so it cannot contain " +
           std::string(1, cmd[at]);
  if (isEnvAssignment(detail::firstCommandWord(cmd)))
    return "the start command is run directly, so it cannot begin with an assignment like "
           "NAME=value; set a secret instead";
  return std::nullopt;
}

/** The Project/Release `runtime` of a command, from its first word (basename): Node, Static,
 *  Python, Ruby, Go, PHP, Java, Rust; std::nullopt when not recognised (or cmd empty).
 *  "npm start" -> Node, "python3.12 app.py" -> Python, "/usr/sbin/php-fpm8.2" -> PHP. */
inline std::optional<std::string> runtimeOfCommand(std::string_view cmd) {
  std::string_view word = detail::firstCommandWord(cmd);
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
  if (detail::isVersionedName(word, "python")) return "Python";
  // php, php-fpm, php-cgi, php8.2, php-fpm8.2: every PHP binary starts with "php".
  if (word.starts_with("php")) return "PHP";
  return std::nullopt;
}

/** Words separated by spaces or tabs (commandProblem has refused quotes, so nothing groups). */
inline std::vector<std::string> splitCommand(std::string_view cmd) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < cmd.size()) {
    while (i < cmd.size() && detail::isCommandBlank(cmd[i])) ++i;
    const std::size_t start = i;
    while (i < cmd.size() && !detail::isCommandBlank(cmd[i])) ++i;
    if (i > start) words.emplace_back(cmd.substr(start, i - start));
  }
  return words;
}

}  // namespace berth::runtime

#endif  // BERTH_RUNTIME_START_COMMANDS_HPP
