// How one run ended, in docs/openapi.yaml's words (Schedule, last_error): success for statuses
// 200 to 399 (error null), `the project answered {code}` for any other status, `the job did not
// finish within five minutes` for a run abandoned at the time limit (the text is fixed even
// when scheduler.run_timeout_seconds sets another limit), or the connection error's own text.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace berth::scheduler {

inline constexpr const char* kAbandonedText = "the job did not finish within five minutes";

struct RunOutcome {
  std::optional<int> status;  // the HTTP status, when one came
  std::optional<std::string> error;
};

bool isSuccessStatus(int status);

RunOutcome answeredOutcome(int status);
// Abandoned at the time limit (or while waiting for a free slot); `status` when the project
// had sent one before the limit.
RunOutcome abandonedOutcome(std::optional<int> status = std::nullopt);
// The request failed before an answer: `text` is the HTTP client's message.
RunOutcome connectionOutcome(const std::string& text);

}  // namespace berth::scheduler
