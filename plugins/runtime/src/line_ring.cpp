#include "line_ring.hpp"

#include "berth/common/utf8.hpp"

namespace berth::runtime {

void LineRing::push(std::string_view line) {
  // Never cut inside a UTF-8 sequence: a character straddling the cut goes whole.
  std::string text(line.substr(0, common::utf8CutPoint(line, max_line_bytes_)));
  if (line.size() > max_line_bytes_) text += "\xE2\x80\xA6";
  std::lock_guard lock(mutex_);
  lines_.push_back(std::move(text));
  while (lines_.size() > max_lines_) lines_.pop_front();
}

std::vector<std::string> LineRing::last(std::size_t count) const {
  std::lock_guard lock(mutex_);
  const std::size_t n = std::min(count, lines_.size());
  return {lines_.end() - static_cast<std::ptrdiff_t>(n), lines_.end()};
}

std::size_t LineRing::size() const {
  std::lock_guard lock(mutex_);
  return lines_.size();
}

}  // namespace berth::runtime
