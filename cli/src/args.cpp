#include "args.hpp"

#include "errors.hpp"

namespace berth::client {

const std::vector<OptionSpec>& knownOptions() {
  static const std::vector<OptionSpec> options = {
      {"json", 0, false},    {"yes", 'y', false},
      {"help", 'h', false},  {"version", 0, false},
      {"url", 0, true},      {"project", 'p', true},
      {"context", 0, true},  {"cmd", 0, true},
      {"detach", 0, false},  {"lines", 'n', true},
      {"kind", 0, true},     {"follow", 'f', false},
      {"format", 0, true},   {"gzip", 0, false},
      {"output", 'o', true}, {"data", 'd', true},
      {"scope", 0, true},    {"team", 0, true},
      {"region", 0, true},   {"expires-in-days", 0, true},
      {"function", 0, true},
  };
  return options;
}

const OptionSpec* findOption(const std::string& long_name) {
  for (const auto& o : knownOptions())
    if (o.name == long_name) return &o;
  return nullptr;
}

static const OptionSpec* findShort(char c) {
  for (const auto& o : knownOptions())
    if (o.short_name == c) return &o;
  return nullptr;
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto v = value(name);
  return v ? *v : fallback;
}

Args parseArgs(const std::vector<std::string>& argv) {
  Args out;
  auto store = [&](const OptionSpec& spec, const std::string& value) {
    if (out.options.count(spec.name)) throw usageError("--" + spec.name + " is given twice");
    out.options[spec.name] = value;
  };
  bool options_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    // "-" alone is a word (stdin); so is anything after "--".
    if (options_done || a == "-" || a.size() < 2 || a[0] != '-') {
      out.words.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    const OptionSpec* spec = nullptr;
    std::optional<std::string> inline_value;
    std::string shown = a;
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2);
      auto eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
        shown = "--" + name;
      }
      spec = findOption(name);
    } else {
      spec = findShort(a[1]);
      shown = a.substr(0, 2);
      if (a.size() > 2) inline_value = a.substr(2);
    }
    if (!spec) throw usageError("unknown option " + shown + "; see berth --help");
    if (!spec->takes_value) {
      if (inline_value) throw usageError(shown + " takes no value");
      store(*spec, "");
      continue;
    }
    if (inline_value) {
      store(*spec, *inline_value);
    } else {
      if (i + 1 >= argv.size()) throw usageError(shown + " needs a value");
      store(*spec, argv[++i]);
    }
  }
  return out;
}

}  // namespace berth::client
