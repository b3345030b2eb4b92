// berth: the command-line client of a Berth server's public API (see cli/README.md).
#include <string>
#include <vector>

#include "command.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return berth::client::runCli(args);
}
