// The command line as words and options. Every option any command takes is known here (so that
// a value-taking option eats its value wherever it stands); which command accepts which option
// is checked by the dispatcher.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace berth::client {

struct OptionSpec {
  std::string name;     // long name without the dashes: "project"
  char short_name = 0;  // 'p' for -p, 0 for none
  bool takes_value = false;
};

// Every option of every command.
const std::vector<OptionSpec>& knownOptions();
const OptionSpec* findOption(const std::string& long_name);

struct Args {
  std::vector<std::string> words;              // positional words, command words included
  std::map<std::string, std::string> options;  // long name -> value ("" for a flag)

  bool has(const std::string& name) const { return options.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
};

// Parses argv (without the program name). `--name value`, `--name=value`, `-p value`, `-pvalue`,
// and `--` to end the options. Throws a usage error (exit 2) for an unknown option, a missing
// value or an option given twice.
Args parseArgs(const std::vector<std::string>& argv);

}  // namespace berth::client
