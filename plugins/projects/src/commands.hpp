// Start commands (api.md, PATCH rules 3-5) and the runtime guessed from one.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::projects {

// Why a start command is refused (run directly, not through a shell): any of | & ; < > ` ( )
// quotes or *, or a leading VAR=value assignment. nullopt when acceptable (empty is fine).
std::optional<std::string> commandProblem(std::string_view cmd);

// From the first word of cmd: Node, Static, Python, Ruby, Go, PHP, Java, Rust; nullopt when
// not recognised (or cmd empty). "node server.js" -> Node, "npm start" -> Node, "python3 app.py"
// -> Python, "/usr/bin/php-fpm" -> PHP (basename), "java -jar x.jar" -> Java, "cargo run" -> Rust,
// "./server" -> nullopt ...
std::optional<std::string> guessRuntime(std::string_view cmd);

}  // namespace berth::projects
