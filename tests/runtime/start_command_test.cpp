// Start commands: header, then project cmd, then detection from the release's files; the
// shell rule of docs/openapi.yaml (PATCH /projects/{name}, the start-command rules) for every
// source; runtime names as the Project shows them.
#include "start_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace berth::runtime;

namespace {

class StartCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-start-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& content = "") {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << content;
  }
  StartChoice choose(std::optional<std::string> header = std::nullopt,
                     std::string_view project_cmd = "") {
    return chooseStartCommand(header, project_cmd, dir_,
                              [this](const std::string& tool) { return tools_.contains(tool); });
  }

  fs::path dir_;
  std::set<std::string> tools_ = {"node", "npm", "python3", "php-cgi"};
};

TEST(CommandRule, RefusesShellSyntaxLikeThePatchRule) {
  EXPECT_FALSE(commandProblem("node server.js --port 3000"));
  EXPECT_FALSE(commandProblem(""));
  EXPECT_FALSE(commandProblem("gunicorn -b 127.0.0.1:$PORT app:app"));
  for (std::string bad : {"a | b", "a & b", "a; b", "a < b", "a > b", "a `b`", "a $(b)", "a 'b'",
                          "a \"b\"", "rm *"}) {
    auto problem = commandProblem(bad);
    ASSERT_TRUE(problem) << bad;
    EXPECT_TRUE(problem->starts_with(
        "the start command is run directly, not through a shell, so it cannot contain "))
        << *problem;
  }
  EXPECT_EQ(*commandProblem("NODE_ENV=production node x.js"),
            "the start command is run directly, so it cannot begin with an assignment like "
            "NAME=value; set a secret instead");
  EXPECT_FALSE(commandProblem("node --flag=x app.js")) << "only a leading assignment is refused";
  EXPECT_EQ(*commandProblem("node a.js\nrm x"), "the start command must be one line");
}

TEST(CommandRule, SplitsOnBlanksOnly) {
  EXPECT_EQ(splitCommand("  node\tserver.js   --port=1 "),
            (std::vector<std::string>{"node", "server.js", "--port=1"}));
  EXPECT_TRUE(splitCommand(" \t ").empty());
}

TEST(CommandRule, RuntimeNamesAsTheProjectShowsThem) {
  EXPECT_EQ(runtimeOfCommand("node server.js"), "Node");
  EXPECT_EQ(runtimeOfCommand("npm start"), "Node");
  EXPECT_EQ(runtimeOfCommand("python3.11 app.py"), "Python");
  EXPECT_EQ(runtimeOfCommand("/usr/sbin/php-fpm8.2"), "PHP");
  EXPECT_EQ(runtimeOfCommand("bundle exec rackup"), "Ruby");
  EXPECT_EQ(runtimeOfCommand("java -jar app.jar"), "Java");
  EXPECT_EQ(runtimeOfCommand("cargo run"), "Rust");
  EXPECT_EQ(runtimeOfCommand("go run ."), "Go");
  EXPECT_EQ(runtimeOfCommand("./server"), std::nullopt);
  EXPECT_EQ(runtimeOfCommand(""), std::nullopt);
}

TEST_F(StartCommand, HeaderWinsOverProjectCmdAndDetection) {
  write("package.json", R"({"scripts": {"start": "node index.js"}})");
  auto choice = choose("node other.js --x", "node server.js");
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->source, "header");
  EXPECT_EQ(choice.plan->argv, (std::vector<std::string>{"node", "other.js", "--x"}));
  EXPECT_EQ(choice.plan->cmd, "node other.js --x");
  EXPECT_EQ(choice.plan->runtime, "Node");
}

TEST_F(StartCommand, HeaderFollowsTheShellRule) {
  write("index.html");
  auto choice = choose("node a.js; rm -rf /", "");
  ASSERT_FALSE(choice.plan);
  EXPECT_EQ(*choice.error,
            "the start command is run directly, not through a shell, so it cannot contain ;");
  EXPECT_TRUE(choose("A=1 node a.js").error);
}

TEST_F(StartCommand, BlankHeaderMeansNoHeader) {
  write("app.js");
  auto choice = choose("   ", "node app.js");
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->source, "project");
}

TEST_F(StartCommand, ProjectCmdWhenNoHeader) {
  write("main.py");
  auto choice = choose(std::nullopt, "python3 main.py");
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Process);
  EXPECT_EQ(choice.plan->source, "project");
  EXPECT_EQ(choice.plan->runtime, "Python");
  EXPECT_EQ(choice.plan->argv, (std::vector<std::string>{"python3", "main.py"}));
}

TEST_F(StartCommand, StaticSiteDoesNotRunTheProjectCmd) {
  // docs/openapi.yaml, PATCH /projects/{name}, the start-command rules.
  write("index.html", "<h1>hi</h1>");
  write("style.css");
  auto choice = choose(std::nullopt, "node server.js");
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Static);
  EXPECT_EQ(choice.plan->runtime, "Static");
  EXPECT_EQ(choice.plan->cmd, "");
}

TEST_F(StartCommand, IndexHtmlBesideTheFileTheCmdNamesIsNotStatic) {
  write("index.html");
  write("server.js");
  auto choice = choose(std::nullopt, "node server.js");
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Process);
  EXPECT_EQ(choice.plan->source, "project");
}

TEST_F(StartCommand, NodeStartScript) {
  write("package.json",
        R"({"scripts": {"start": "NODE_ENV=production node server.js --port 1"},
            "dependencies": {"express": "^4"}})");
  write("package-lock.json", "{}");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->runtime, "Node");
  EXPECT_EQ(choice.plan->source, "detected");
  EXPECT_EQ(choice.plan->argv, (std::vector<std::string>{"node", "server.js", "--port", "1"}));
  EXPECT_EQ(choice.plan->cmd, "node server.js --port 1");
  ASSERT_EQ(choice.plan->env.size(), 1u);
  EXPECT_EQ(choice.plan->env[0], (std::pair<std::string, std::string>{"NODE_ENV", "production"}));
  EXPECT_EQ(choice.plan->build, (std::vector<std::string>{"npm", "ci", "--omit=dev"}));
}

TEST_F(StartCommand, NodeWithoutLockUsesInstallAndWithModulesNoBuild) {
  write("package.json", R"({"main": "index.js", "dependencies": {"a": "1"}})");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->argv, (std::vector<std::string>{"node", "index.js"}));
  EXPECT_EQ(choice.plan->build, (std::vector<std::string>{"npm", "install", "--omit=dev"}));
  fs::create_directories(dir_ / "node_modules");
  EXPECT_TRUE(choose().plan->build.empty());
}

TEST_F(StartCommand, NodeStartScriptNeedingAShellIsRefused) {
  write("package.json", R"({"scripts": {"start": "npm run build && node dist/index.js"}})");
  auto choice = choose();
  ASSERT_FALSE(choice.plan);
  EXPECT_EQ(*choice.error,
            "package.json's start script cannot be run without a shell (the start command is run "
            "directly, not through a shell, so it cannot contain &); set the start command with "
            "the x-berth-cmd header or the project's cmd");
}

TEST_F(StartCommand, NodeFallsBackToServerJsThenFails) {
  write("package.json", R"({"name": "x"})");
  EXPECT_EQ(*choose().error, "package.json has no start script and no main");
  write("server.js");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->cmd, "node server.js");
}

TEST_F(StartCommand, BrokenPackageJson) {
  write("package.json", "{not json");
  EXPECT_EQ(*choose().error, "package.json is not valid JSON");
}

TEST_F(StartCommand, NodeMissingFromTheMachine) {
  tools_.erase("node");
  write("package.json", R"({"main": "a.js"})");
  EXPECT_EQ(*choose().error,
            "this release needs Node (it has package.json), which is not installed on this server");
}

TEST_F(StartCommand, PythonNeedsRequirementsAndAnEntryFile) {
  write("main.py");
  EXPECT_TRUE(choose().error) << "main.py alone is not detected";
  write("requirements.txt", "flask\n");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->cmd, "python3 main.py");
  write("app.py");
  EXPECT_EQ(choose().plan->cmd, "python3 app.py") << "app.py is preferred";
  EXPECT_EQ(choose().plan->runtime, "Python");
}

TEST_F(StartCommand, PhpRelease) {
  write("index.php", "<?php echo 1;");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Php);
  EXPECT_EQ(choice.plan->runtime, "PHP");
  tools_.clear();
  EXPECT_EQ(*choose().error,
            "this release needs PHP (it has index.php), which is not installed on this server");
}

TEST_F(StartCommand, GoAndRubyOnlyWithTheirTools) {
  write("go.mod", "module x\n");
  EXPECT_EQ(*choose().error,
            "this release needs Go (it has go.mod), which is not installed on this server");
  tools_.insert("go");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->runtime, "Go");
  EXPECT_EQ(choice.plan->build.front(), "go");
  fs::remove(dir_ / "go.mod");

  write("Gemfile");
  EXPECT_EQ(*choose().error, "a Ruby release needs config.ru, or a start command");
  write("config.ru");
  EXPECT_TRUE(choose().error);
  tools_.insert("bundle");
  ASSERT_TRUE(choose().plan);
  EXPECT_EQ(choose().plan->runtime, "Ruby");
}

TEST_F(StartCommand, IndexHtmlAloneIsStatic) {
  write("index.html");
  write("assets/app.js");
  auto choice = choose();
  ASSERT_TRUE(choice.plan) << *choice.error;
  EXPECT_EQ(choice.plan->kind, StartKind::Static);
}

TEST_F(StartCommand, NothingToRun) {
  write("README.md");
  auto choice = choose();
  ASSERT_FALSE(choice.plan);
  EXPECT_TRUE(choice.error->starts_with("nothing to run: ")) << *choice.error;
}

TEST(ToolOnPath, FindsRealPrograms) {
  EXPECT_TRUE(toolOnPath("sh"));
  EXPECT_FALSE(toolOnPath("berth-no-such-program"));
}

}  // namespace
