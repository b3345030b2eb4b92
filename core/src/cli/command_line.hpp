// berthd's command line: a command (serve, migrate, account create ...), global options
// (--config, --set) and the command's own --flags.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace berth::core {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommandLine {
  std::vector<std::string> words;              // "account", "create"
  std::map<std::string, std::string> options;  // --email x -> {"email", "x"}
  std::string config_file;                     // --config, else $BERTH_CONFIG, else etc/berth.yaml
  std::vector<Override> overrides;             // --set a.b=v

  std::string command() const;  // words joined by a space; "serve" when empty
  std::string require(const std::string& option) const;
  std::string get(const std::string& option, const std::string& fallback = "") const;
};

CommandLine parseCommandLine(int argc, char** argv);

extern const char* const kUsage;

}  // namespace berth::core
