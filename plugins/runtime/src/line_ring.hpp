// The last lines a process printed, bounded in count and in length per line: what a 503 shows
// when a start fails, and what the log store receives. Safe to use from several threads.
#pragma once
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace berth::runtime {

class LineRing {
 public:
  explicit LineRing(std::size_t max_lines = 200, std::size_t max_line_bytes = 2000)
      : max_lines_(max_lines), max_line_bytes_(max_line_bytes) {}

  // A line longer than the bound is cut and ends in "…".
  void push(std::string_view line);
  // The newest `count` lines, oldest first.
  std::vector<std::string> last(std::size_t count) const;
  std::size_t size() const;

 private:
  std::size_t max_lines_;
  std::size_t max_line_bytes_;
  mutable std::mutex mutex_;
  std::deque<std::string> lines_;
};

// Splits a byte stream into lines ("\n", with a trailing "\r" dropped); a partial line waits
// for its end, but is cut into pieces when it grows past `max_bytes` (a process printing
// without newlines cannot grow memory).
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_bytes = 8192) : max_bytes_(max_bytes) {}
  template <typename Sink>
  void feed(std::string_view bytes, Sink&& sink) {
    for (char c : bytes) {
      if (c == '\n') {
        emit(sink);
        continue;
      }
      partial_ += c;
      if (partial_.size() >= max_bytes_) emit(sink);
    }
  }
  template <typename Sink>
  void finish(Sink&& sink) {
    if (!partial_.empty()) emit(sink);
  }

 private:
  template <typename Sink>
  void emit(Sink& sink) {
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    sink(std::string_view(partial_));
    partial_.clear();
  }
  std::size_t max_bytes_;
  std::string partial_;
};

}  // namespace berth::runtime
