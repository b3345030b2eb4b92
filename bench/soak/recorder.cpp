#include "soak/recorder.hpp"

#include <chrono>

namespace berth::soak {

namespace {
// Enough to investigate; a flood of the same failure would only bury the first ones.
constexpr size_t kMaxKept = 40;
}  // namespace

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Recorder::record(const std::string& family, const std::string& request, long status,
                      const std::string& answer, double ms, bool as_expected, bool provoked,
                      bool body_ok) {
  std::lock_guard lock(mutex_);
  ++total_;
  auto& f = families_[family];
  f.ms.push_back(ms);
  const bool surprise = !as_expected || !body_ok;
  if (as_expected && !body_ok) ++f.wrong_body;
  if (!as_expected)
    ++f.unexpected[status];
  else if (provoked)
    ++f.expected[status];
  else if (body_ok)
    ++f.ok[status];
  if (!surprise) return;
  ++surprise_count_;
  if (surprises_.size() < kMaxKept)
    surprises_.push_back(
        {nowSeconds() - started_at_s_, family, request, answer.substr(0, 600), status});
}

std::map<std::string, FamilyTally> Recorder::families() const {
  std::lock_guard lock(mutex_);
  return families_;
}

std::vector<Surprise> Recorder::surprises() const {
  std::lock_guard lock(mutex_);
  return surprises_;
}

long Recorder::surpriseCount() const {
  std::lock_guard lock(mutex_);
  return surprise_count_;
}

long Recorder::total() const {
  std::lock_guard lock(mutex_);
  return total_;
}

}  // namespace berth::soak
