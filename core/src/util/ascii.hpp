// ASCII case folding, for what compares without regard to ASCII case: HTTP header names and
// schemes, host names, e-mail addresses. No locale is consulted (std::tolower asks for one on
// every character, and berthd never sets one, so the answers are the same).
#pragma once
#include <string>

namespace berth::core {

inline char asciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

inline std::string asciiLower(std::string text) {
  for (char& c : text) c = asciiLower(c);
  return text;
}

}  // namespace berth::core
