// Child processes: fork/exec with an optional unprivileged user, output to a file.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace berth::core {

struct SpawnOptions {
  std::optional<std::string> run_as;       // user name; only honoured when we are root
  std::string cwd;                         // empty: inherit
  std::string output_file;                 // stdout+stderr appended here; empty: inherit
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited env
  bool new_process_group = true;
  // Sent to the child when the thread that spawned it ends, so a berthd killed with SIGKILL
  // takes the child along (PR_SET_PDEATHSIG). Spawn such children from a long-lived thread.
  int parent_death_signal = 0;
};

struct ExitStatus {
  bool exited = false;  // normal exit (code valid); otherwise killed by signal
  int code = 0;
  int signal = 0;
  bool ok() const { return exited && code == 0; }
};

class Child {
 public:
  Child() = default;
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();  // kills (SIGKILL) and reaps a child still running

  pid_t pid() const { return pid_; }
  bool running();  // reaps if it has exited
  std::optional<ExitStatus> exitStatus() const { return status_; }
  void signal(int sig);
  // Waits up to timeout; returns the status, or nullopt when still running.
  std::optional<ExitStatus> wait(std::chrono::milliseconds timeout);
  ExitStatus waitForever();
  // SIGTERM, wait grace, then SIGKILL.
  ExitStatus stop(std::chrono::milliseconds grace);
  void release() { pid_ = -1; }  // forget without killing

 private:
  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
};

// Throws std::runtime_error when the program cannot be started (exec failure is reported by the
// child through a pipe, so a missing binary fails here, not later).
Child spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Runs to completion and returns status plus combined output (for initdb, nginx -t ...).
struct RunResult {
  ExitStatus status;
  std::string output;
};
RunResult runCommand(const std::vector<std::string>& argv, const SpawnOptions& options = {},
                     std::chrono::milliseconds timeout = std::chrono::minutes(2));

// uid/gid of a user; nullopt when unknown.
struct UserIds {
  uid_t uid;
  gid_t gid;
  std::string home;
};
std::optional<UserIds> lookupUser(const std::string& name);

// A free TCP port on 127.0.0.1 (bind to 0, read it, close).
uint16_t freeLoopbackPort();

}  // namespace berth::core
