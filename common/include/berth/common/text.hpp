// Small text helpers shared by the core and the first-party plugins.
#pragma once
#include <string>
#include <string_view>

namespace berth::common {

// The text without the ASCII whitespace (space, \t, \n, \v, \f, \r) at either end.
std::string trimmed(std::string_view text);

// The same, as a view into text (for a caller that only looks at the result).
std::string_view trimmedView(std::string_view text);

}  // namespace berth::common
