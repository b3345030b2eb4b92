// A command: its words ("projects ls"), the options it takes besides the global ones, its
// usage line, and the function that runs it with a Context.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.hpp"
#include "config.hpp"
#include "http_client.hpp"
#include "output.hpp"
#include "settings.hpp"

namespace berth::client {

class Context {
 public:
  Context(Args args, std::vector<std::string> words, Output out, ConfigFile config,
          Settings settings)
      : args(std::move(args)),
        words(std::move(words)),
        out(std::move(out)),
        config(std::move(config)),
        settings(std::move(settings)) {}

  Args args;
  std::vector<std::string> words;  // the positional words after the command's own
  Output out;
  ConfigFile config;
  Settings settings;

  // The API with the token; throws CliError(kExitNotSignedIn) when there is no token.
  const HttpClient& api();
  // The API without requiring a token (public routes, login).
  HttpClient anonymous() const { return HttpClient(settings.url, ""); }
  // The project: -p/--project, BERTH_PROJECT, else .berth/project.json; a usage error without.
  const std::string& project();
  // "/projects/<project>" (encoded).
  std::string projectPath();
  bool yes() const { return args.has("yes"); }
  std::string word(size_t i, const std::string& fallback = "") const {
    return i < words.size() ? words[i] : fallback;
  }

 private:
  std::unique_ptr<HttpClient> api_;
};

// max_words of a command that takes any number of words.
inline constexpr size_t kManyWords = 100000;

struct Command {
  std::string name;                  // "projects ls", "deploy"
  std::string usage;                 // "berth projects create NAME [--team T]"
  std::string summary;               // one line
  std::vector<std::string> options;  // accepted besides the global ones
  size_t min_words = 0, max_words = 0;
  std::function<int(Context&)> run;
};

// The global options every command takes.
const std::vector<std::string>& globalOptions();

// Each group's file adds its commands here.
void addAuthCommands(std::vector<Command>& out);
void addProjectCommands(std::vector<Command>& out);
void addDeployCommands(std::vector<Command>& out);
void addLogsCommands(std::vector<Command>& out);
void addSecretsCommands(std::vector<Command>& out);
void addDomainsCommands(std::vector<Command>& out);
void addFilesCommands(std::vector<Command>& out);
void addCronCommands(std::vector<Command>& out);
void addDbCommands(std::vector<Command>& out);
void addDataApiCommands(std::vector<Command>& out);
void addApiCommands(std::vector<Command>& out);

const std::vector<Command>& allCommands();

// Runs the whole command line (argv without the program's name); returns the exit code. Errors
// are printed on stderr here.
int runCli(const std::vector<std::string>& argv);

}  // namespace berth::client
