#include "child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

namespace berth::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// In the parent: execvp allocates, which is unsafe after fork. Relative names with a '/'
// ("./server") are resolved against the child's working folder.
std::string resolveProgram(const ChildSpec& spec) {
  const std::string& program = spec.argv[0];
  if (program.find('/') != std::string::npos) {
    if (program.front() == '/' || spec.cwd.empty()) return program;
    return spec.cwd + "/" + program;
  }
  auto it = spec.env.find("PATH");
  const std::string list = it != spec.env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
  if (auto found = common::findOnPath(program, list)) return *found;
  throw std::runtime_error("cannot start " + program + ": no such program on PATH");
}

std::optional<common::SpawnCredentials> credentialsFor(const ChildSpec& spec) {
  if (::geteuid() != 0) return std::nullopt;
  // Root never runs a child as itself.
  if (!spec.run_as)
    throw std::runtime_error("cannot start " + spec.argv[0] + ": no user to run it as");
  if (spec.run_as->uid == 0 || spec.run_as->gid == 0)
    throw std::runtime_error("cannot start " + spec.argv[0] + ": uid or gid 0 is root");
  // Supplementary groups are dropped.
  return common::SpawnCredentials{spec.run_as->uid, spec.run_as->gid, {}};
}

std::runtime_error cannotStart(const ChildSpec& spec, int err) {
  return std::runtime_error("cannot start " + spec.argv[0] + ": " + common::errnoText(err));
}

}  // namespace

StartedChild spawnChild(const ChildSpec& spec) {
  if (spec.argv.empty()) throw std::invalid_argument("spawnChild: empty argv");
  common::SpawnRequest request;
  request.program = resolveProgram(spec);
  request.credentials = credentialsFor(spec);
  request.argv = spec.argv;
  for (const auto& [name, value] : spec.env) request.environment.push_back(name + "=" + value);
  request.cwd = spec.cwd;
  request.new_process_group = true;  // so a stop reaches everything it started
  request.ignore_term = spec.ignore_term;
  request.parent_death_signal = SIGKILL;

  auto output = common::makePipe(O_CLOEXEC);
  if (!output) throw cannotStart(spec, errno);
  std::optional<common::Pipe> input;
  if (spec.pipe_stdin) {
    input = common::makePipe(O_CLOEXEC);
    if (!input) throw cannotStart(spec, errno);
    request.stdin_fd = input->read.get();
  }
  request.stdout_fd = output->write.get();
  request.stderr_fd = output->write.get();

  StartedChild started;
  started.pid = common::spawnProcess(request);  // the child's ends close with the pipes here
  started.output = std::move(output->read);
  if (input) started.input = std::move(input->write);
  return started;
}

namespace {
// Exited, but not yet reaped: its group id cannot be reused by another process meanwhile.
bool hasExited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
         info.si_pid == pid;
}
}  // namespace

ChildExit stopChild(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(-pid, SIGTERM);
  const common::Fd pidfd = openPidFd(pid);
  const auto deadline = Clock::now() + grace;
  for (;;) {
    if (hasExited(pid)) {
      ::kill(-pid, SIGKILL);  // helpers it left behind in its group
      return reap(pid);
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    if (pidfd) {
      struct pollfd p {
        pidfd.get(), POLLIN, 0
      };
      ::poll(&p, 1, static_cast<int>(left.count()));
    } else {
      std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(10)));
    }
  }
  ::kill(-pid, SIGKILL);
  return reap(pid);
}

}  // namespace berth::runtime
