#include "support/reference_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "support/fuzz_check.hpp"

namespace berth::fuzz {
namespace {

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool readAll(int fd, char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

ReferenceProcess::ReferenceProcess(std::vector<std::string> command)
    : command_(std::move(command)) {}

ReferenceProcess::~ReferenceProcess() {
  stop();
}

void ReferenceProcess::broken(const std::string& why) {
  std::string line;
  for (const auto& part : command_) line += (line.empty() ? "" : " ") + part.substr(0, 60);
  fail("the reference process is broken (a harness problem, not a finding of the target)",
       why + ": " + line);
}

void ReferenceProcess::start() {
  // A child that died would otherwise kill the fuzzer with SIGPIPE on the next write, which
  // reads like a finding; a failed write is reported by broken() instead.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    broken(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> argv;
  for (auto& part : command_) argv.push_back(part.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) broken(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    // dup2 clears close-on-exec on the copies, so only stdin and stdout stay open.
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
}

void ReferenceProcess::stop() {
  if (pid_ <= 0) return;
  ::close(to_child_);  // the child reads end of input and exits
  ::close(from_child_);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string ReferenceProcess::ask(std::string_view request) {
  if (pid_ <= 0) start();
  const uint32_t size = static_cast<uint32_t>(request.size());
  const char header[4] = {static_cast<char>(size >> 24), static_cast<char>(size >> 16),
                          static_cast<char>(size >> 8), static_cast<char>(size)};
  if (!writeAll(to_child_, header, 4) || !writeAll(to_child_, request.data(), request.size()))
    broken("cannot write a request (the child exited?)");
  unsigned char length[4];
  if (!readAll(from_child_, reinterpret_cast<char*>(length), 4))
    broken("no answer (the child exited?)");
  const size_t answer_size = (size_t{length[0]} << 24) | (size_t{length[1]} << 16) |
                             (size_t{length[2]} << 8) | size_t{length[3]};
  if (answer_size > (64u << 20)) broken("an answer frame of " + std::to_string(answer_size));
  std::string answer(answer_size, '\0');
  if (!readAll(from_child_, answer.data(), answer_size)) broken("a cut answer frame");
  return answer;
}

}  // namespace berth::fuzz
