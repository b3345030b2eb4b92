// A one-line progress bar on stderr, redrawn in place (only made when stderr is a terminal).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace berth::client {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label) : label_(std::move(label)) {}
  void update(uint64_t done, uint64_t total);  // total 0: unknown
  void finish(bool ok);                        // ends the line

 private:
  std::string label_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

std::string formatBytes(uint64_t bytes);

}  // namespace berth::client
