// An owned file descriptor: closed when its owner goes, handed on by move. The one the core and
// the first-party plugins use for pipes, sockets, pidfds and the folders and files they open.
#pragma once

#include <fcntl.h>

#include <optional>

namespace berth::common {

class Fd {
 public:
  Fd() noexcept = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& other) noexcept;
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }
  // Gives the descriptor up without closing it.
  int release() noexcept;
  // Closes the one held (if any) and takes `fd`.
  void reset(int fd = -1) noexcept;
  // Closes now and returns close()'s result (0, or -1 with errno): on some file systems close()
  // is where a failed write shows. 0 when nothing was held.
  int close() noexcept;

 private:
  int fd_ = -1;
};

// Both ends of a pipe.
struct Pipe {
  Fd read;
  Fd write;
};

// pipe2(flags); nullopt (errno set) when the process is out of descriptors.
std::optional<Pipe> makePipe(int flags = O_CLOEXEC);

}  // namespace berth::common
