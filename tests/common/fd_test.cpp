// ctest-label: unit
// berth::common::Fd: one owner per descriptor, closed when the owner goes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "berth/common/fd.hpp"

namespace berth::common {
namespace {

bool isOpen(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

int openDevNull() {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  return fd;
}

TEST(CommonFd, ClosesWhenItGoes) {
  const int raw = openDevNull();
  {
    Fd fd(raw);
    EXPECT_TRUE(fd.valid());
    EXPECT_EQ(fd.get(), raw);
    EXPECT_TRUE(isOpen(raw));
  }
  EXPECT_FALSE(isOpen(raw));
}

TEST(CommonFd, EmptyHoldsNothing) {
  Fd fd;
  EXPECT_FALSE(fd.valid());
  EXPECT_FALSE(static_cast<bool>(fd));
  EXPECT_EQ(fd.get(), -1);
  EXPECT_EQ(fd.close(), 0);
}

TEST(CommonFd, MoveHandsOwnershipOn) {
  const int raw = openDevNull();
  Fd first(raw);
  Fd second(std::move(first));
  EXPECT_FALSE(first.valid());
  EXPECT_EQ(second.get(), raw);

  Fd third;
  third = std::move(second);
  EXPECT_FALSE(second.valid());
  EXPECT_EQ(third.get(), raw);
  EXPECT_TRUE(isOpen(raw));
  third = Fd();
  EXPECT_FALSE(isOpen(raw));
}

TEST(CommonFd, MoveAssignmentClosesWhatItHeld) {
  const int a = openDevNull();
  const int b = openDevNull();
  Fd held(a);
  held = Fd(b);
  EXPECT_FALSE(isOpen(a));
  EXPECT_TRUE(isOpen(b));
  EXPECT_EQ(held.get(), b);
}

TEST(CommonFd, ReleaseGivesUpWithoutClosing) {
  const int raw = openDevNull();
  int released = -1;
  {
    Fd fd(raw);
    released = fd.release();
    EXPECT_FALSE(fd.valid());
  }
  EXPECT_EQ(released, raw);
  EXPECT_TRUE(isOpen(raw));
  ::close(raw);
}

TEST(CommonFd, ResetAndCloseCloseNow) {
  const int a = openDevNull();
  const int b = openDevNull();
  Fd fd(a);
  fd.reset(b);
  EXPECT_FALSE(isOpen(a));
  EXPECT_EQ(fd.get(), b);
  EXPECT_EQ(fd.close(), 0);
  EXPECT_FALSE(isOpen(b));
  EXPECT_FALSE(fd.valid());
}

TEST(CommonFd, PipeCarriesBytesAndEndsAreCloseOnExec) {
  auto pipe = makePipe();
  ASSERT_TRUE(pipe.has_value());
  EXPECT_TRUE(::fcntl(pipe->read.get(), F_GETFD) & FD_CLOEXEC);
  EXPECT_TRUE(::fcntl(pipe->write.get(), F_GETFD) & FD_CLOEXEC);
  ASSERT_EQ(::write(pipe->write.get(), "hi", 2), 2);
  pipe->write.reset();
  char buffer[8] = {};
  EXPECT_EQ(::read(pipe->read.get(), buffer, sizeof buffer), 2);
  EXPECT_EQ(std::string(buffer, 2), "hi");
  EXPECT_EQ(::read(pipe->read.get(), buffer, sizeof buffer), 0);  // the writer is gone
}

}  // namespace
}  // namespace berth::common
