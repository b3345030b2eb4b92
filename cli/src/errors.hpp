// The exit codes scripts rely on, and the errors that carry them up to main().
#pragma once
#include <stdexcept>
#include <string>

namespace berth::client {

enum ExitCode : int {
  kExitOk = 0,
  kExitRefused = 1,       // the API refused the request (its error text on stderr)
  kExitUsage = 2,         // bad arguments, a missing confirmation, an unreadable local file
  kExitNotSignedIn = 3,   // no token, or the API answered 401
  kExitDeployFailed = 4,  // the release failed to build
  kExitNetwork = 5,       // the API could not be reached
};

// An error to print on stderr and the exit code that goes with it.
class CliError : public std::runtime_error {
 public:
  CliError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

inline CliError usageError(const std::string& message) {
  return CliError(kExitUsage, message);
}

}  // namespace berth::client
