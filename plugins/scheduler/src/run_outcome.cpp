#include "run_outcome.hpp"

namespace berth::scheduler {

bool isSuccessStatus(int status) {
  return status >= 200 && status <= 399;
}

RunOutcome answeredOutcome(int status) {
  RunOutcome outcome;
  outcome.status = status;
  if (!isSuccessStatus(status)) outcome.error = "the project answered " + std::to_string(status);
  return outcome;
}

RunOutcome abandonedOutcome(std::optional<int> status) {
  return RunOutcome{status, std::string(kAbandonedText)};
}

RunOutcome connectionOutcome(const std::string& text) {
  return RunOutcome{std::nullopt, text.empty() ? std::string("the request failed") : text};
}

}  // namespace berth::scheduler
