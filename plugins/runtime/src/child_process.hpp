// fork/exec of an app process, written for the plugin (plugins include no core sources; the
// core's util/process is the model). Everything the child needs is prepared before fork: only
// async-signal-safe calls run between fork and exec.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
  pid_t pid = -1;      // also the process group id (the child leads its own group)
  int output_fd = -1;  // read end of the pipe carrying stdout and stderr; the caller closes it
  int input_fd = -1;   // with pipe_stdin: write end of its stdin (close-on-exec); caller closes
};

// Throws std::runtime_error("cannot start <argv0>: <why>") when it cannot start, including a
// failed exec (reported by the child through a close-on-exec pipe). The child gets SIGKILL
// when the spawning THREAD ends (PR_SET_PDEATHSIG), so spawn from a thread that lives as long
// as the process should.
StartedChild spawnChild(const ChildSpec& spec);

struct ChildExit {
  bool exited = false;  // exited normally (code valid), otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  std::string describe() const;  // "exited with code 3", "was killed by signal 9"
};

// Reaps without waiting: nullopt while it runs.
std::optional<ChildExit> reapIfExited(pid_t pid);
ChildExit reap(pid_t pid);

// SIGTERM to the group, up to `grace` for it to end, then SIGKILL to the group; reaps.
ChildExit stopChild(pid_t pid, std::chrono::milliseconds grace);

// A pidfd for `pid` (readable once it exits), or -1 when the kernel has none.
int openPidFd(pid_t pid);

}  // namespace berth::runtime
