#include "start_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "php_cgi.hpp"

namespace berth::runtime {
namespace {

namespace fs = std::filesystem;

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}
bool isFolder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string joinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::string missingTool(std::string_view runtime, std::string_view marker) {
  return "this release needs " + std::string(runtime) + " (it has " + std::string(marker) +
         "), which is not installed on this server";
}

StartChoice planFromCommand(std::string_view cmd, std::string source) {
  StartChoice choice;
  if (auto problem = commandProblem(cmd)) {
    choice.error = std::move(problem);
    return choice;
  }
  StartPlan plan;
  plan.argv = splitCommand(cmd);
  if (plan.argv.empty()) {
    choice.error = "the start command is empty";
    return choice;
  }
  plan.cmd = joinWords(plan.argv);
  plan.runtime = runtimeOfCommand(cmd);
  plan.source = std::move(source);
  choice.plan = std::move(plan);
  return choice;
}

// A release is a static site when it has index.html and nothing that asks for a process:
// no marker file of a runtime, and no file the project's cmd names ("node server.js").
bool looksStatic(const fs::path& dir, std::string_view project_cmd) {
  if (!isFile(dir / "index.html")) return false;
  static constexpr std::array kMarkers = {"package.json", "requirements.txt", "app.py",
                                          "main.py",      "index.php",        "go.mod",
                                          "Gemfile",      "config.ru"};
  for (const char* marker : kMarkers)
    if (isFile(dir / marker)) return false;
  for (const auto& word : splitCommand(project_cmd)) {
    auto clean = fs::path(word).lexically_normal();
    if (clean.is_relative() && !clean.empty() && *clean.begin() != ".." && isFile(dir / clean))
      return false;
  }
  return true;
}

StartChoice detectNode(const fs::path& dir, const ToolFinder& tool_exists) {
  StartChoice choice;
  if (!tool_exists("node")) {
    choice.error = missingTool("Node", "package.json");
    return choice;
  }
  nlohmann::json package;
  try {
    package = nlohmann::json::parse(readFile(dir / "package.json"));
  } catch (const nlohmann::json::exception&) {
    choice.error = "package.json is not valid JSON";
    return choice;
  }
  if (!package.is_object()) {
    choice.error = "package.json is not a JSON object";
    return choice;
  }
  StartPlan plan;
  plan.runtime = "Node";
  plan.source = "detected";
  const auto scripts = package.value("scripts", nlohmann::json::object());
  if (scripts.is_object() && scripts.contains("start") && scripts["start"].is_string()) {
    // The start script is run directly, like any command, except that leading NAME=value
    // words (common: "NODE_ENV=production node server.js") become its environment.
    auto words = splitCommand(scripts["start"].get<std::string>());
    std::size_t first = 0;
    while (first < words.size() && isEnvAssignment(words[first])) {
      const auto eq = words[first].find('=');
      plan.env.emplace_back(words[first].substr(0, eq), words[first].substr(eq + 1));
      ++first;
    }
    words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(first));
    const std::string rest = joinWords(words);
    if (auto problem = commandProblem(scripts["start"].get<std::string>());
        problem && !problem->starts_with("the start command is run directly, so it cannot begin"))
      choice.error = "package.json's start script cannot be run without a shell (" + *problem +
                     "); set the start command with the x-berth-cmd header or the project's cmd";
    else if (words.empty())
      choice.error = "package.json's start script is empty";
    if (choice.error) return choice;
    plan.argv = std::move(words);
    plan.cmd = rest;
  } else if (package.contains("main") && package["main"].is_string()) {
    const std::string main = package["main"].get<std::string>();
    if (main.empty() || commandProblem(main) || splitCommand(main).size() != 1) {
      choice.error = "package.json's main is not a file name the platform can run";
      return choice;
    }
    plan.argv = {"node", main};
    plan.cmd = "node " + main;
  } else if (isFile(dir / "server.js")) {
    plan.argv = {"node", "server.js"};  // what npm start does without a start script
    plan.cmd = "node server.js";
  } else {
    choice.error = "package.json has no start script and no main";
    return choice;
  }
  const auto deps = package.value("dependencies", nlohmann::json::object());
  if (!isFolder(dir / "node_modules") && deps.is_object() && !deps.empty()) {
    if (isFile(dir / "package-lock.json") || isFile(dir / "npm-shrinkwrap.json"))
      plan.build = {"npm", "ci", "--omit=dev"};
    else
      plan.build = {"npm", "install", "--omit=dev"};
  }
  choice.plan = std::move(plan);
  return choice;
}

StartChoice detect(const fs::path& dir, const ToolFinder& tool_exists) {
  StartChoice choice;
  if (isFile(dir / "package.json")) return detectNode(dir, tool_exists);
  if (isFile(dir / "requirements.txt") && (isFile(dir / "app.py") || isFile(dir / "main.py"))) {
    if (!tool_exists("python3")) {
      choice.error = missingTool("Python", "requirements.txt");
      return choice;
    }
    const std::string script = isFile(dir / "app.py") ? "app.py" : "main.py";
    choice.plan = StartPlan{
        StartKind::Process, "python3 " + script, {"python3", script}, {}, "Python", "detected", {}};
    return choice;
  }
  if (isFile(dir / "index.php")) {
    // php-cgi as a FastCGI server under the supervisor, one per project (README, "PHP").
    if (!tool_exists("php-cgi")) {
      choice.error = missingTool("PHP", "index.php");
      return choice;
    }
    choice.plan = StartPlan{StartKind::Php, kPhpCgiCommand, phpCgiCommand(), {},
                            "PHP",          "detected",     phpBuildStep()};
    return choice;
  }
  if (isFile(dir / "go.mod")) {
    if (!tool_exists("go")) {
      choice.error = missingTool("Go", "go.mod");
      return choice;
    }
    choice.plan = StartPlan{StartKind::Process,
                            "./.berth-app",
                            {"./.berth-app"},
                            {},
                            "Go",
                            "detected",
                            {"go", "build", "-o", ".berth-app", "."}};
    return choice;
  }
  if (isFile(dir / "Gemfile")) {
    if (!isFile(dir / "config.ru")) {
      choice.error = "a Ruby release needs config.ru, or a start command";
      return choice;
    }
    if (!tool_exists("bundle")) {
      choice.error = missingTool("Ruby", "Gemfile");
      return choice;
    }
    choice.plan = StartPlan{StartKind::Process,
                            "bundle exec rackup --host 127.0.0.1 --port $PORT",
                            {"bundle", "exec", "rackup", "--host", "127.0.0.1", "--port", "$PORT"},
                            {},
                            "Ruby",
                            "detected",
                            {"bundle", "install"}};
    return choice;
  }
  if (isFile(dir / "index.html")) {
    choice.plan = StartPlan{StartKind::Static, "", {}, {}, "Static", "detected", {}};
    return choice;
  }
  choice.error =
      "nothing to run: the release has no index.html, package.json, requirements.txt with app.py "
      "or main.py, index.php, go.mod or Gemfile; send the start command in the x-berth-cmd "
      "header or set the project's cmd";
  return choice;
}

}  // namespace

bool toolOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  // Debian puts php-fpm<version> in /usr/sbin, which is not always on PATH.
  std::string all = std::string(dirs) + ":/usr/sbin:/sbin";
  std::size_t start = 0;
  while (start <= all.size()) {
    auto end = all.find(':', start);
    if (end == std::string::npos) end = all.size();
    const std::string dir = all.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

StartChoice chooseStartCommand(const std::optional<std::string>& header,
                               std::string_view project_cmd, const fs::path& release_dir,
                               const ToolFinder& tool_exists) {
  if (header && !splitCommand(*header).empty()) return planFromCommand(*header, "header");
  // docs/openapi.yaml, PATCH /projects/{name}: static sites do not run the project's cmd.
  if (looksStatic(release_dir, project_cmd))
    return StartChoice{StartPlan{StartKind::Static, "", {}, {}, "Static", "detected", {}}, {}};
  if (!splitCommand(project_cmd).empty()) return planFromCommand(project_cmd, "project");
  return detect(release_dir, tool_exists);
}

}  // namespace berth::runtime
