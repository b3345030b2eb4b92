#include "child_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "berth/common/fd.hpp"
#include "berth/common/spawn.hpp"

namespace berth::sqlconsole {
namespace {

constexpr size_t kKeepErrors = 64 * 1024;

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::atomic<bool>* stop) {
  if (argv.empty()) throw std::runtime_error("no program to run");
  // Close-on-exec, so children other threads start do not hold the write end open.
  auto errors = common::makePipe(O_CLOEXEC);
  if (!errors) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  common::Fd null_output(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!null_output) throw std::runtime_error(std::string("/dev/null: ") + std::strerror(errno));

  // Default signal handling in the child, whatever the server's threads block or ignore; stdin
  // and stdout /dev/null, stderr into the pipe.
  common::SpawnRequest request;
  request.program = argv[0];
  request.argv = argv;
  request.environment = env;
  request.stdout_fd = null_output.get();
  request.stderr_fd = errors->write.get();
  const pid_t pid = common::spawnProcess(request);
  errors->write.reset();
  const common::Fd& output = errors->read;

  ChildResult result;
  char buffer[4096];
  for (;;) {
    if (stop != nullptr) {
      if (!result.stopped && stop->load()) {
        ::kill(pid, SIGKILL);  // not reaped yet: the pid is still this child's
        result.stopped = true;
      }
      pollfd fd{output.get(), POLLIN, 0};
      const int ready = ::poll(&fd, 1, 200);
      if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    }
    const ssize_t got = ::read(output.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.errors.append(buffer, static_cast<size_t>(got));
    if (result.errors.size() > 2 * kKeepErrors)
      result.errors.erase(0, result.errors.size() - kKeepErrors);
  }
  errors->read.reset();
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
