// What the tests of service contracts ask of a contract's parsers and writers: the refusal a
// parser throws, in one comparable line, and the fields a writer wrote.
#pragma once
#include <berth/error.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>

namespace berth::testing {

// What `fn` throws as a berth::Error: "<status> <message>"; "no error" when it returns.
inline std::string refusal(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const berth::Error& e) {
    return std::to_string(e.status()) + " " + e.message();
  }
  return "no error";
}

inline std::set<std::string> keysOf(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

}  // namespace berth::testing
