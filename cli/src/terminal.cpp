#include "terminal.hpp"

#include <termios.h>
#include <unistd.h>
#include <berth/common/text.hpp>

#include <iostream>
#include <sstream>

#include "errors.hpp"

namespace berth::client {

bool stdinIsTerminal() {
  return ::isatty(STDIN_FILENO);
}

std::string ask(const std::string& question, bool hidden) {
  std::cout.flush();
  std::cerr << question << std::flush;
  termios old{};
  bool restore = false;
  if (hidden && ::tcgetattr(STDIN_FILENO, &old) == 0) {
    termios quiet = old;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    restore = ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0;
  }
  std::string line;
  std::getline(std::cin, line);
  if (restore) {
    ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
    std::cerr << "\n";
  }
  return common::trimmed(line);
}

std::string readAllStdin() {
  std::stringstream text;
  text << std::cin.rdbuf();
  return text.str();
}

void confirmOrThrow(bool yes, const std::string& what) {
  if (yes) return;
  if (!stdinIsTerminal())
    throw usageError(what + ": pass --yes to confirm (berth asks only when stdin is a terminal)");
  std::string answer = ask(what + "? [y/N] ");
  if (answer != "y" && answer != "Y" && answer != "yes")
    throw usageError("stopped; nothing was changed");
}

}  // namespace berth::client
