// Starting a child process (fork/exec) and reaping it: the one piece the core (nginx, initdb,
// the embedded PostgreSQL), the runtime plugin (apps, builds, one-off commands) and the SQL
// console (pg_dump) start their children with. What a caller decides for itself stays with it:
// which user, the sandbox's argv, the environment an app gets, how output is read.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "berth/common/fd.hpp"

namespace berth::common {

struct ExitStatus {
  bool exited = false;  // exited normally (code valid); otherwise killed by `signal`
  int code = 0;
  int signal = 0;
  bool ok() const { return exited && code == 0; }
  std::string describe() const;  // "exited with code 3", "was killed by signal 9"
};

// waitpid's status word as an ExitStatus.
ExitStatus decodeWaitStatus(int raw);
// Reaps without waiting: nullopt while it runs; an empty ExitStatus when it was reaped elsewhere
// (ECHILD), since how it ended cannot be known then.
std::optional<ExitStatus> reapIfExited(pid_t pid);
// Waits for it (through EINTR) and reaps it.
ExitStatus reap(pid_t pid);
// A pidfd for `pid` (readable once it exits); not valid when the kernel has none.
Fd openPidFd(pid_t pid);

// Numeric credentials for the child: setgroups(groups), setgid, setuid, in that order.
struct SpawnCredentials {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups; empty: none
};

struct SpawnRequest {
  std::string program;                   // the file to execve (findOnPath resolves a bare name)
  std::vector<std::string> argv;         // argv[0] also names the program in error texts
  std::vector<std::string> environment;  // "NAME=value" lines: the child's whole environment
  std::string cwd;                       // empty: the parent's
  std::optional<SpawnCredentials> credentials;  // none: the parent's
  bool new_process_group = false;  // the child leads its own group (set from both sides)
  bool ignore_term = false;        // SIGTERM ignored; every other signal starts at its default
  // Sent to the child when the THREAD that spawned it ends (PR_SET_PDEATHSIG); 0: none.
  int parent_death_signal = 0;
  int stdin_fd = -1;   // dup'ed to its stdin; -1: /dev/null
  int stdout_fd = -1;  // dup'ed to its stdout; -1: the parent's (or output_file)
  int stderr_fd = -1;  // dup'ed to its stderr; -1: the parent's (or output_file)
  // With neither stdout_fd nor stderr_fd: both appended to this file, opened by the child
  // before it changes credentials.
  std::string output_file;
};

// Starts the child and returns its pid. Everything the child needs is prepared before fork, so
// only async-signal-safe calls run between fork and exec; descriptors other than 0, 1 and 2
// are closed at exec. A failed exec (or any step before it) is reported by the child through a
// close-on-exec pipe, the child reaped, and std::runtime_error("cannot start <argv[0]>: <why>")
// thrown, so a missing binary fails here rather than later.
pid_t spawnProcess(const SpawnRequest& request);

// The first executable regular file called `name` in the folders of a PATH-style list
// ("/usr/bin:/bin"); empty entries are skipped. nullopt when there is none.
std::optional<std::string> findOnPath(const std::string& name, const std::string& path_list);

bool isExecutableFile(const std::string& path);

// strerror's text for an errno value.
std::string errnoText(int err);

}  // namespace berth::common
