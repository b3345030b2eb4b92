// Which API, token and project a command uses: flags beat BERTH_URL / BERTH_TOKEN /
// BERTH_PROJECT, which beat the config (the current context, and the folder's
// .berth/project.json for the project).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "args.hpp"
#include "config.hpp"

namespace berth::client {

inline const std::string kDefaultUrl = "http://127.0.0.1:8080";

struct Settings {
  std::string context;         // the context's name
  bool context_known = false;  // the config has it
  std::string url;             // without a trailing slash
  std::string token;           // empty: not signed in
  std::string project;         // empty: none named anywhere
};

// The environment as a map, so that tests can resolve without touching the process's own.
using Environment = std::map<std::string, std::string>;
Environment processEnvironment();

// The token of a context is sent only to that context's address: with --url or BERTH_URL naming
// another address, the token of a context with that address is used, else none (BERTH_TOKEN
// still applies).
Settings resolveSettings(const Args& args, const ConfigFile& config, const Environment& env,
                         const std::string& cwd);

std::string trimSlash(std::string url);

// .berth/project.json of `dir` or the nearest folder above it that has one.
std::optional<std::string> linkedProject(const std::string& dir);
// Writes <dir>/.berth/project.json.
void writeLink(const std::string& dir, const std::string& project, const std::string& url);

}  // namespace berth::client
