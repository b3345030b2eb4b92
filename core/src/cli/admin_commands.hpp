// The admin subcommands (README.md, A curl tour): accounts, tokens, teams and migrations.
#pragma once
#include "cli/command_line.hpp"
#include "config/settings.hpp"

namespace berth::core {

// Prints JSON (or the token) on stdout; throws AccountError/UsageError when refused.
int runAdminCommand(const CommandLine& command_line, const Settings& settings);

}  // namespace berth::core
