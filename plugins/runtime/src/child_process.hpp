// Starting an app process: the runtime's rules (a project's own uid and gid, never root, the
// whole environment given, its own process group, SIGKILL when the spawning thread ends) on
// top of berth::common's spawnProcess, which does the fork/exec.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "berth/common/fd.hpp"
#include "berth/common/spawn.hpp"

namespace berth::runtime {

// Numeric credentials a child runs with: a project's own uid and gid (runtime.uid_range). No
// /etc/passwd entry is needed; supplementary groups are dropped.
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct ChildSpec {
  std::vector<std::string> argv;           // argv[0] looked up on env's PATH when it has no '/'
  std::map<std::string, std::string> env;  // the whole environment (nothing is inherited)
  std::string cwd;
  // Honoured (and required: root never runs a child as itself) only when berthd is root; a
  // berthd that is not root cannot switch and runs children as itself.
  std::optional<RunAs> run_as;
  // The child (bwrap) ignores SIGTERM, so that a stop's SIGTERM to the group reaches the
  // sandboxed process (which restores its default: sandboxedArgv) while bwrap lives on until
  // it ends; killing bwrap first would take the process down at once (--die-with-parent).
  bool ignore_term = false;
  // Its stdin is a pipe whose write end the caller gets (StartedChild::input_fd); otherwise
  // /dev/null.
  bool pipe_stdin = false;
};

struct StartedChild {
  pid_t pid = -1;     // also the process group id (the child leads its own group)
  common::Fd output;  // read end of the pipe carrying stdout and stderr
  common::Fd input;   // with pipe_stdin: write end of its stdin (close-on-exec)
};

// Throws std::runtime_error("cannot start <argv0>: <why>") when it cannot start, including a
// failed exec (reported by the child through a close-on-exec pipe). The child gets SIGKILL
// when the spawning THREAD ends (PR_SET_PDEATHSIG), so spawn from a thread that lives as long
// as the process should.
StartedChild spawnChild(const ChildSpec& spec);

// How a child ended: "exited with code 3", "was killed by signal 9" (describe()).
using ChildExit = common::ExitStatus;
// reapIfExited (nullopt while it runs), reap (waits), openPidFd (readable once it exits).
using common::openPidFd;
using common::reap;
using common::reapIfExited;

// SIGTERM to the group, up to `grace` for it to end, then SIGKILL to the group; reaps.
ChildExit stopChild(pid_t pid, std::chrono::milliseconds grace);

}  // namespace berth::runtime
