// Finds the command of a command line, checks its options and word count, runs it, and turns
// every error into its message on stderr and its exit code.
#include <algorithm>
#include <iostream>
#include <set>

#include "command.hpp"
#include "errors.hpp"

namespace berth::client {

const std::vector<Command>& allCommands() {
  static const std::vector<Command> commands = [] {
    std::vector<Command> out;
    addAuthCommands(out);
    addProjectCommands(out);
    addDeployCommands(out);
    addLogsCommands(out);
    addSecretsCommands(out);
    addDomainsCommands(out);
    addFilesCommands(out);
    addCronCommands(out);
    addDbCommands(out);
    addDataApiCommands(out);
    addApiCommands(out);
    return out;
  }();
  return commands;
}

namespace {

const Command* findCommand(const std::string& name) {
  for (const auto& c : allCommands())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<const Command*> group(const std::string& first) {
  std::vector<const Command*> out;
  for (const auto& c : allCommands())
    if (c.name.rfind(first + " ", 0) == 0) out.push_back(&c);
  return out;
}

void printHelp(std::ostream& os) {
  os << "berth: deploy and run projects on a Berth server from the command line\n\n"
        "Usage: berth COMMAND [ARGS] [OPTIONS]\n\nCommands:\n";
  size_t w = 0;
  for (const auto& c : allCommands()) w = std::max(w, c.usage.size() - 6);
  for (const auto& c : allCommands()) {
    std::string u = c.usage.substr(6);  // without "berth "
    os << "  " << u << std::string(w - u.size() + 2, ' ') << c.summary << "\n";
  }
  os << "\nGlobal options:\n"
        "  --json            the API's JSON on stdout (NDJSON with --follow)\n"
        "  -p, --project P   the project (else BERTH_PROJECT, else .berth/project.json)\n"
        "  --url URL         the API (else BERTH_URL, else the context's)\n"
        "  --context NAME    a named context of the config (else BERTH_CONTEXT, else current)\n"
        "  -y, --yes         confirm a destructive command without asking\n"
        "  -h, --help        this help, or a command's\n\n"
        "Exit codes: 0 ok, 1 the API refused, 2 usage, 3 not signed in, 4 deploy failed,\n"
        "5 network. See cli/README.md.\n";
}

}  // namespace

int runCli(const std::vector<std::string>& argv) {
  bool json = std::find(argv.begin(), argv.end(), "--json") != argv.end();
  Output out = Output::forProcess(json);
  try {
    Args args = parseArgs(argv);
    if (args.has("version")) {
      out.line("berth " BERTH_CLI_VERSION);
      return kExitOk;
    }
    if (args.words.empty() || args.words[0] == "help") {
      if (args.words.empty() && !args.has("help")) {
        printHelp(std::cerr);
        return kExitUsage;
      }
      printHelp(std::cout);
      return kExitOk;
    }
    const Command* cmd = nullptr;
    size_t used = 0;
    if (args.words.size() >= 2) {
      cmd = findCommand(args.words[0] + " " + args.words[1]);
      used = 2;
    }
    if (!cmd) {
      cmd = findCommand(args.words[0]);
      used = 1;
    }
    if (!cmd) {
      auto subs = group(args.words[0]);
      if (subs.empty())
        throw usageError("unknown command " + args.words[0] + "; berth --help lists them");
      // A group alone lists: `berth secrets` is `berth secrets ls`.
      if (args.words.size() == 1) cmd = findCommand(args.words[0] + " ls");
      if (!cmd) {
        std::string names;
        for (auto* s : subs)
          names += (names.empty() ? "" : ", ") + s->name.substr(s->name.find(' ') + 1);
        throw usageError("berth " + args.words[0] + " needs one of: " + names);
      }
    }
    if (args.has("help")) {
      out.line("Usage: " + cmd->usage + "\n\n" + cmd->summary);
      return kExitOk;
    }
    std::set<std::string> allowed(globalOptions().begin(), globalOptions().end());
    allowed.insert(cmd->options.begin(), cmd->options.end());
    for (const auto& [name, value] : args.options)
      if (!allowed.count(name))
        throw usageError("berth " + cmd->name + " does not take --" + name +
                         "; usage: " + cmd->usage);
    std::vector<std::string> words(
        args.words.begin() + static_cast<long>(std::min(used, args.words.size())),
        args.words.end());
    if (words.size() < cmd->min_words || words.size() > cmd->max_words)
      throw usageError("usage: " + cmd->usage);
    ConfigFile config = loadConfig();
    Settings settings = resolveSettings(args, config, processEnvironment(), ".");
    Context ctx(args, words, out, config, settings);
    return cmd->run(ctx);
  } catch (const CliError& e) {
    out.error(e.what());
    return e.code();
  } catch (const std::exception& e) {
    out.error(e.what());
    return kExitRefused;
  }
}

}  // namespace berth::client
