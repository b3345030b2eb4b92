#include "child_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace berth::sqlconsole {
namespace {

constexpr size_t kKeepErrors = 64 * 1024;

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::atomic<bool>* stop) {
  if (argv.empty()) throw std::runtime_error("no program to run");
  int pipe_fds[2];
  // Close-on-exec, so children other threads start do not hold the write end open.
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Default signal handling in the child, whatever the server's threads block or ignore.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args = pointers(argv);
  std::vector<char*> environment = pointers(env);
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(spawned));
  }

  ChildResult result;
  char buffer[4096];
  for (;;) {
    if (stop != nullptr) {
      if (!result.stopped && stop->load()) {
        ::kill(pid, SIGKILL);  // not reaped yet: the pid is still this child's
        result.stopped = true;
      }
      pollfd fd{pipe_fds[0], POLLIN, 0};
      const int ready = ::poll(&fd, 1, 200);
      if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    }
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.errors.append(buffer, static_cast<size_t>(got));
    if (result.errors.size() > 2 * kKeepErrors)
      result.errors.erase(0, result.errors.size() - kKeepErrors);
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (result.errors.size() > kKeepErrors)
    result.errors.erase(0, result.errors.size() - kKeepErrors);
  return result;
}

}  // namespace berth::sqlconsole
