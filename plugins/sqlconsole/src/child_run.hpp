// Running a helper program (pg_dump) from a worker thread: berth::common's spawnProcess, stdout
// to /dev/null, stderr captured (its last 64 KB) for the error message, no shell.
#pragma once
#include <atomic>
#include <string>
#include <vector>

namespace berth::sqlconsole {

struct ChildResult {
  int exitCode = -1;     // -1: killed by a signal
  std::string errors;    // what it wrote to stderr (the end of it)
  bool stopped = false;  // killed because *stop became true
};

// Runs argv[0] (an absolute path) with exactly env as its environment and waits for it. When
// *stop becomes true (checked a few times a second), the child is killed (SIGKILL) and the
// result says so (exitCode -1, stopped). Throws std::runtime_error ("cannot start <argv0>: <why>")
// when it cannot be started.
ChildResult runChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::atomic<bool>* stop = nullptr);

}  // namespace berth::sqlconsole
