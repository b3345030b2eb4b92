#include "plugin/hook_registry.hpp"

#include <stdexcept>

#include "log/logging.hpp"

namespace berth::core {

void HookRegistry::add(const std::string& event, const std::string& owner, berth_hook_fn fn,
                       void* user) {
  if (event.empty()) throw std::invalid_argument("a hook needs an event name");
  if (fn == nullptr) throw std::invalid_argument("hook " + event + " has no function");
  by_event_[event].push_back(Subscriber{owner, fn, user});
}

int32_t HookRegistry::fire(std::string_view event, std::string_view payload_json,
                           berth_buffer* out) const {
  auto it = by_event_.find(event);
  if (it == by_event_.end()) return BERTH_OK;
  const berth_str event_view{event.data(), event.size()};
  const berth_str payload_view{payload_json.data(), payload_json.size()};
  // What the hooks that accepted answered (Registrar::hookAnswer), as one JSON array.
  std::string answers;
  for (const Subscriber& subscriber : it->second) {
    berth_buffer answer;
    const int32_t status = subscriber.fn(subscriber.user, event_view, payload_view, &answer);
    if (status == BERTH_OK) {
      if (!answer.bytes.empty()) {
        answers += answers.empty() ? '[' : ',';
        answers += answer.bytes;
      }
      continue;
    }
    logLine(*getLogger("core"), spdlog::level::debug, "", "",
            "hook " + std::string(event) + " refused by plugin " + subscriber.owner + ": " +
                answer.bytes);
    if (out != nullptr) out->bytes += answer.bytes;
    return BERTH_ERR;
  }
  if (out != nullptr && !answers.empty()) out->bytes += answers + ']';
  return BERTH_OK;
}

void HookRegistry::tell(std::string_view event, std::string_view payload_json) const {
  auto it = by_event_.find(event);
  if (it == by_event_.end()) return;
  const berth_str event_view{event.data(), event.size()};
  const berth_str payload_view{payload_json.data(), payload_json.size()};
  for (const Subscriber& subscriber : it->second) {
    berth_buffer answer;
    if (subscriber.fn(subscriber.user, event_view, payload_view, &answer) == BERTH_OK) continue;
    logLine(*getLogger("core"), spdlog::level::warn, "", "",
            "hook " + std::string(event) + " failed in plugin " + subscriber.owner + ": " +
                answer.bytes);
  }
}

std::vector<std::string> HookRegistry::subscribers(const std::string& event) const {
  std::vector<std::string> owners;
  if (auto it = by_event_.find(event); it != by_event_.end())
    for (const Subscriber& subscriber : it->second) owners.push_back(subscriber.owner);
  return owners;
}

std::vector<std::string> HookRegistry::eventsStartingWith(std::string_view prefix) const {
  std::vector<std::string> events;
  for (auto it = by_event_.lower_bound(prefix);
       it != by_event_.end() && std::string_view(it->first).starts_with(prefix); ++it)
    events.push_back(it->first);
  return events;
}

}  // namespace berth::core
