// What a new schedule's fields must be (docs/openapi.yaml, POST /projects/{name}/schedules: 400
// with the reason), and its id. Each check returns the refusal's text, or nothing when the
// value is fine.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::scheduler {

inline constexpr size_t kMaxNameChars = 200;
inline constexpr size_t kMaxPathBytes = 2048;

// Empty (or only white space), or longer than kMaxNameChars characters.
std::optional<std::string> nameProblem(std::string_view trimmed_name);

// Not starting with `/`; over kMaxPathBytes; anything but printable ASCII (the path goes into
// a request line as written, so spaces and other bytes must be percent-encoded); a `#`
// (fragments are never sent).
std::optional<std::string> pathProblem(std::string_view path);

// 48 hexadecimal characters from 24 bytes of OpenSSL's RAND_bytes. Throws std::runtime_error
// when the generator fails (it never hands out a weak id).
std::string newScheduleId();

// 48 lower-case hexadecimal characters.
bool isScheduleId(std::string_view text);

}  // namespace berth::scheduler
