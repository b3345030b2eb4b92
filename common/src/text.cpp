#include <berth/common/text.hpp>

namespace berth::common {

std::string trimmed(std::string_view text) {
  return std::string(trimmedView(text));
}

std::string_view trimmedView(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

}  // namespace berth::common
