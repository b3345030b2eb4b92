// The start-command rules (docs/openapi.yaml, PATCH /projects/{name}): the shell rule and the
// runtime table, which the runtime answers to the projects plugin's hooks (projects.cmd_change.v1,
// projects.view.v1) and offers as runtime.start_commands.v1.
#include "start_commands.hpp"

#include <gtest/gtest.h>

using namespace berth::runtime;

namespace {
const std::string kAssignment =
    "the start command is run directly, so it cannot begin with an assignment like "
    "NAME=value; set a secret instead";
const std::string kOneLine = "the start command must be one line";

std::string shellProblem(char c) {
  return "the start command is run directly, not through a shell, so it cannot contain " +
         std::string(1, c);
}
}  // namespace

TEST(CommandProblem, AcceptsPlainCommands) {
  for (const char* cmd : {"", "node server.js", "npm run start -- --port 3000",
                          "python3 -m http.server", "bin/app --flag=value", "./server",
                          "  gunicorn app:app  ", "java -jar x.jar", "ruby app.rb\t-p 80"}) {
    EXPECT_EQ(commandProblem(cmd), std::nullopt) << cmd;
  }
}

TEST(CommandProblem, RefusesEveryShellCharacter) {
  for (char c : std::string("|&;<>`()'\"*")) {
    const std::string cmd = std::string("node a") + c + "b";
    EXPECT_EQ(commandProblem(cmd), shellProblem(c)) << cmd;
  }
}

TEST(CommandProblem, NamesTheFirstOffendingCharacter) {
  EXPECT_EQ(commandProblem("node a.js > log | tee x"), shellProblem('>'));
  EXPECT_EQ(commandProblem("npm start && npm test"), shellProblem('&'));
  EXPECT_EQ(commandProblem("sh -c 'x'"), shellProblem('\''));
  EXPECT_EQ(commandProblem("echo *.js; ls"), shellProblem('*'));
}

TEST(CommandProblem, RefusesALeadingAssignment) {
  for (const char* cmd : {"PORT=3000 node server.js", "NODE_ENV=production npm start", "_x=1 app",
                          "a1= app", "  FOO=bar node"}) {
    EXPECT_EQ(commandProblem(cmd), kAssignment) << cmd;
  }
}

TEST(CommandProblem, AcceptsAssignmentsThatAreNotLeading) {
  // Only the first word would be taken by a shell as an assignment.
  EXPECT_EQ(commandProblem("node server.js PORT=3000"), std::nullopt);
  EXPECT_EQ(commandProblem("env PORT=3000 node"), std::nullopt);
  // Not of the NAME=value form: NAME must not start with a digit or hold other characters.
  EXPECT_EQ(commandProblem("1A=2 app"), std::nullopt);
  EXPECT_EQ(commandProblem("--port=3000"), std::nullopt);
  EXPECT_EQ(commandProblem("a-b=c app"), std::nullopt);
  EXPECT_EQ(commandProblem("=x app"), std::nullopt);
}

TEST(CommandProblem, MustBeOneLine) {
  EXPECT_EQ(commandProblem("node a.js\nrm -rf x"), kOneLine);
  EXPECT_EQ(commandProblem("node a.js\r\n"), kOneLine);
  EXPECT_EQ(commandProblem(std::string_view("node\0a.js", 9)), kOneLine);
  // Reported even when a shell character comes earlier.
  EXPECT_EQ(commandProblem("a|b\nc"), kOneLine);
}

TEST(GuessRuntime, RecognisesTheFirstWord) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"node server.js", "Node"},
      {"nodejs server.js", "Node"},
      {"npm start", "Node"},
      {"npx serve-it", "Node"},
      {"yarn start", "Node"},
      {"pnpm start", "Node"},
      {"bun run index.ts", "Node"},
      {"deno run main.ts", "Node"},
      {"python app.py", "Python"},
      {"python3 app.py", "Python"},
      {"python3.12 app.py", "Python"},
      {"pip install x", "Python"},
      {"gunicorn app:app", "Python"},
      {"uvicorn main:app", "Python"},
      {"flask run", "Python"},
      {"django-admin runserver", "Python"},
      {"ruby app.rb", "Ruby"},
      {"bundle exec puma", "Ruby"},
      {"rails server", "Ruby"},
      {"rackup", "Ruby"},
      {"puma -p 3000", "Ruby"},
      {"go run .", "Go"},
      {"php -S 0.0.0.0:8000", "PHP"},
      {"php-fpm", "PHP"},
      {"php-cgi", "PHP"},
      {"php8.2 index.php", "PHP"},
      {"/usr/bin/php-fpm", "PHP"},
      {"java -jar x.jar", "Java"},
      {"mvn spring-boot:run", "Java"},
      {"gradle run", "Java"},
      {"./gradlew bootRun", "Java"},
      {"cargo run", "Rust"},
      {"rustc main.rs", "Rust"},
      {"static", "Static"},
      {"serve -s build", "Static"},
      {"http-server .", "Static"},
      {"caddy file-server", "Static"},
      {"nginx -g daemon-off", "Static"},
      {"  /usr/local/bin/node\tserver.js", "Node"},
  };
  for (const auto& [cmd, runtime] : table) EXPECT_EQ(runtimeOfCommand(cmd), runtime) << cmd;
}

TEST(GuessRuntime, UnknownOrEmptyIsNull) {
  for (const char* cmd : {"", "   ", "./server", "bin/app --flag", "gopher", "go-server",
                          "server.go", "nodemon app.js", "pythonista", "/usr/bin/", "Node x"}) {
    EXPECT_EQ(runtimeOfCommand(cmd), std::nullopt) << cmd;
  }
}
