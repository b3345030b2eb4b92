// Questions to a person, asked only when stdin is a terminal: a script never waits on a prompt.
#pragma once
#include <string>

namespace berth::client {

bool stdinIsTerminal();
// Prints `question` on stderr and reads one line from stdin (without echo when `hidden`).
std::string ask(const std::string& question, bool hidden = false);
// Everything on stdin, for a token or a value piped in.
std::string readAllStdin();

// Destructive commands go on with --yes; on a terminal they ask; otherwise they stop with a usage
// error (exit 2) that names --yes.
void confirmOrThrow(bool yes, const std::string& what);

}  // namespace berth::client
