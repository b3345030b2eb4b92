// berthd: the service (serve) and its admin subcommands.
#include <signal.h>

#include <iostream>

#include "app/serve.hpp"
#include "auth/accounts.hpp"
#include "cli/admin_commands.hpp"
#include "cli/command_line.hpp"
#include "config/settings.hpp"
#include "log/logging.hpp"

int main(int argc, char** argv) {
  using namespace berth::core;
  // Pistache writes with send(); a vanished peer must not kill the process.
  signal(SIGPIPE, SIG_IGN);
  // Every thread inherits this mask, so SIGTERM/SIGINT reach only serve's sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  CommandLine cl;
  try {
    cl = parseCommandLine(argc, argv);
  } catch (const UsageError& e) {
    if (*e.what()) std::cerr << "berthd: " << e.what() << "\n\n";
    std::cerr << kUsage;
    return 2;
  }
  try {
    Settings settings = loadSettings(cl.config_file, cl.overrides);
    // Admin commands print JSON on stdout; their logs stay quiet unless something is wrong.
    if (cl.command() != "serve" && settings.log.level != "error") settings.log.level = "warn";
    initLogging(settings.log);
    if (cl.command() == "serve") return runServe(settings);
    return runAdminCommand(cl, settings);
  } catch (const UsageError& e) {
    std::cerr << "berthd: " << e.what() << "\n\n" << kUsage;
    return 2;
  } catch (const ConfigError& e) {
    std::cerr << "berthd: " << e.what() << std::endl;
    return 78;  // EX_CONFIG
  } catch (const AccountError& e) {
    std::cerr << "berthd: " << e.what() << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "berthd: " << e.what() << std::endl;
    return 1;
  }
}
