// What a fuzz target does when it finds a defect that is not a crash: a differential target
// whose two parsers disagree, or a parser that broke its own promise (threw something other
// than its documented error). It prints what it saw and aborts, which libFuzzer records as a
// finding (and saves the input) and which fails the replay test.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace berth::fuzz {

[[noreturn]] inline void fail(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz finding: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void check(bool ok, std::string_view what, std::string_view detail = {}) {
  if (!ok) fail(what, detail);
}

inline std::string_view asText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace berth::fuzz
