#include <berth/common/sql_text.hpp>

namespace berth::common {

std::string quotedIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string pqMessage(const char* message) {
  std::string out = message != nullptr ? message : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string pqMessageWithoutSeverity(const char* message) {
  std::string out = pqMessage(message);
  constexpr std::string_view kSeverity = "ERROR:  ";
  if (out.starts_with(kSeverity)) out.erase(0, kSeverity.size());
  return out;
}

}  // namespace berth::common
