#include "cli/command_line.hpp"

#include <cstdlib>

namespace berth::core {

const char* const kUsage = R"(usage: berthd [--config FILE] [--set key=value ...] COMMAND

  serve                                          run the service
  migrate                                        apply pending migrations and exit
  account create --email E [--plan P] [--slug S]
  account login-link --email E [--minutes 15]    print a one-time console sign-in address
  token create --email E [--name N] [--expires-in-days D]
  token revoke --email E --name N [--wait-seconds 10]
                                                 returns once no node accepts the token
  team create --slug S --owner E [--plan P]
  team add --team S --email E --role admin|member [--wait-seconds 10]
  team remove --team S --email E [--wait-seconds 10]
  secrets-key [--file F]                         make the secrets key file once (0600); print
                                                 its path (nothing when the config sets
                                                 projects.secrets_key)
  routes --json                                  print every route berthd serves, from the
                                                 core and each enabled plugin

The configuration file is --config, else $BERTH_CONFIG, else etc/berth.yaml.
)";

std::string CommandLine::command() const {
  if (words.empty()) return "serve";
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string CommandLine::require(const std::string& option) const {
  auto it = options.find(option);
  if (it == options.end() || it->second.empty()) throw UsageError(command() + " needs --" + option);
  return it->second;
}

std::string CommandLine::get(const std::string& option, const std::string& fallback) const {
  auto it = options.find(option);
  return it == options.end() ? fallback : it->second;
}

CommandLine parseCommandLine(int argc, char** argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      cl.words.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (name == "help") {
      throw UsageError("");
    } else if (name == "json") {
      value = "true";  // a flag: takes no value
    } else {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      value = argv[++i];
    }
    if (name == "config") {
      cl.config_file = value;
    } else if (name == "set") {
      auto e = value.find('=');
      if (e == std::string::npos || e == 0) throw UsageError("--set takes key=value, got " + value);
      cl.overrides.push_back({value.substr(0, e), value.substr(e + 1)});
    } else {
      cl.options[name] = value;
    }
  }
  if (cl.config_file.empty()) {
    const char* env = std::getenv("BERTH_CONFIG");
    cl.config_file = env && *env ? env : "etc/berth.yaml";
  }
  return cl;
}

}  // namespace berth::core
