#include "berth/common/fd.hpp"

#include <unistd.h>

#include <utility>

namespace berth::common {

Fd::Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) reset(std::exchange(other.fd_, -1));
  return *this;
}

int Fd::release() noexcept {
  return std::exchange(fd_, -1);
}

void Fd::reset(int fd) noexcept {
  const int old = std::exchange(fd_, fd);
  if (old >= 0 && old != fd) ::close(old);
}

int Fd::close() noexcept {
  const int old = std::exchange(fd_, -1);
  return old >= 0 ? ::close(old) : 0;
}

std::optional<Pipe> makePipe(int flags) {
  int ends[2];
  if (::pipe2(ends, flags) != 0) return std::nullopt;
  return Pipe{Fd(ends[0]), Fd(ends[1])};
}

}  // namespace berth::common
