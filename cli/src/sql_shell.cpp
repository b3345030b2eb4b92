// berth db shell: a readline REPL on the project's database. Lines gather until a ; ends a
// statement outside quotes; one statement goes to /query, several to /batch. \dt, \d TABLE,
// \? and \q work. Without a terminal on stdin it reads a script the same way, without prompts,
// and exits 1 when a statement was refused.
#include <readline/history.h>
#include <readline/readline.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <berth/common/text.hpp>
#include "command.hpp"
#include "db_sql.hpp"
#include "errors.hpp"
#include "sql_split.hpp"
#include "terminal.hpp"

namespace berth::client {

namespace {

std::string historyFile() {
  const char* state = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  std::string dir = state && *state
                        ? std::string(state) + "/berth"
                        : std::string(home && *home ? home : ".") + "/.local/state/berth";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return dir + "/sql_history";
}

// Runs a backslash command; returns false for \q.
bool meta(Context& ctx, const std::string& line) {
  std::string cmd = common::trimmed(line);
  std::string arg;
  auto space = cmd.find_first_of(" \t");
  if (space != std::string::npos) {
    arg = common::trimmed(cmd.substr(space));
    cmd = cmd.substr(0, space);
  }
  if (cmd == "\\q") return false;
  if (cmd == "\\dt" || (cmd == "\\d" && arg.empty())) {
    printTables(ctx);
  } else if (cmd == "\\d") {
    printTable(ctx, arg);
  } else if (cmd == "\\?") {
    ctx.out.line(
        "\\dt          the tables\n\\d TABLE     a table's columns\n\\q           quit\n"
        "SQL ends with ;  one statement runs alone, several run in one transaction");
  } else {
    throw CliError(kExitUsage, "unknown command " + cmd + "; \\? lists them");
  }
  return true;
}

}  // namespace

int sqlShell(Context& ctx) {
  std::string project = ctx.project();
  ctx.api();  // signed in, before the first prompt
  bool tty = stdinIsTerminal();
  std::string history = historyFile();
  if (tty) {
    using_history();
    read_history(history.c_str());
    ctx.out.note("berth db shell on " + project + "; \\? for help, \\q to quit");
  }
  bool failed = false;
  std::string buffer;
  auto run = [&](const std::string& sql) {
    try {
      printSqlAnswer(ctx, runSql(ctx, sql));
    } catch (const CliError& e) {
      if (e.code() == kExitNotSignedIn || e.code() == kExitNetwork) throw;
      ctx.out.error(e.what());
      failed = true;
    }
  };
  while (true) {
    std::string line;
    if (tty) {
      std::string prompt = project + (buffer.empty() ? "=> " : "-> ");
      char* raw = readline(prompt.c_str());
      if (!raw) break;
      line = raw;
      std::free(raw);
    } else if (!std::getline(std::cin, line)) {
      break;
    }
    if (buffer.empty() && common::trimmed(line).rfind('\\', 0) == 0) {
      if (tty) add_history(line.c_str());
      try {
        if (!meta(ctx, line)) break;
      } catch (const CliError& e) {
        if (e.code() == kExitNotSignedIn || e.code() == kExitNetwork) throw;
        ctx.out.error(e.what());
        failed = true;
      }
      continue;
    }
    buffer += line + "\n";
    if (common::trimmed(buffer).empty()) {
      buffer.clear();
      continue;
    }
    if (endsStatement(buffer)) {
      if (tty) add_history(common::trimmed(buffer).c_str());
      run(buffer);
      buffer.clear();
    }
  }
  if (!common::trimmed(buffer).empty()) run(buffer);  // a script's last statement without its ;
  if (tty) {
    std::cerr << "\n";
    write_history(history.c_str());
    history_truncate_file(history.c_str(), 1000);
  }
  return failed && !tty ? kExitRefused : kExitOk;
}

}  // namespace berth::client
