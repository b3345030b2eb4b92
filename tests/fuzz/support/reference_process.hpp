// A long-lived reference implementation in another language (croniter in Python, PHP's own
// parser), asked one question per fuzz input over pipes. Starting an interpreter per input
// would cost tens of milliseconds; one child answering frames costs microseconds.
//
// The protocol is the child's to implement: each request is a frame (4-byte big-endian length,
// then that many bytes) written to its stdin, and each answer one frame read from its stdout,
// in order. Its stderr is left as the fuzzer's, so a traceback shows up in the fuzzer's log.
#pragma once
#include <sys/types.h>
#include <string>
#include <string_view>
#include <vector>

namespace berth::fuzz {

class ReferenceProcess {
 public:
  // The child's command line, argv[0] a path (no PATH search), e.g. {"/usr/bin/python3",
  // "-c", script}. Nothing is started until the first ask().
  explicit ReferenceProcess(std::vector<std::string> command);
  ~ReferenceProcess();
  ReferenceProcess(const ReferenceProcess&) = delete;
  ReferenceProcess& operator=(const ReferenceProcess&) = delete;

  // Sends one request frame and returns the answer frame. A child that cannot start, exits or
  // writes a broken frame is not a finding of the target but a broken harness: the fuzzer
  // stops with a message (berth::fuzz::fail) naming the command.
  std::string ask(std::string_view request);

 private:
  void start();
  void stop();
  [[noreturn]] void broken(const std::string& why);

  std::vector<std::string> command_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
};

}  // namespace berth::fuzz
