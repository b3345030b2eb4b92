// A process stopped (SIGSTOP) for as long as the object lives, then continued (SIGCONT).
// kill() only queues the stop: a thread of a busy process may still answer a request before
// every thread has stopped, so the constructor waits until /proc shows them all stopped.
#pragma once
#include <sys/types.h>

namespace berth::testing {

class ProcessPause {
 public:
  explicit ProcessPause(pid_t pid);
  ~ProcessPause();
  ProcessPause(const ProcessPause&) = delete;
  ProcessPause& operator=(const ProcessPause&) = delete;

 private:
  pid_t pid_;
};

bool everyThreadStopped(pid_t pid);

}  // namespace berth::testing
