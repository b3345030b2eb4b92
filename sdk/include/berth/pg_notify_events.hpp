/** @file
 *  The hook events through which the core hands plugins PostgreSQL's NOTIFY (a host offering,
 *  no ABI: plain hooks, see <berth/pg_notify.hpp>). The core keeps one LISTEN connection to the
 *  control-plane database; it LISTENs on every channel some plugin hooks and fires:
 *
 *  - "pg.notify:<channel>" for each notification on <channel>, with the payload
 *    {"channel": "<channel>", "payload": "<text sent with it>"};
 *  - "pg.listening" each time the connection listens on every hooked channel: once after the
 *    plugins started, and again after every reconnection. A notification sent while nobody
 *    listened is lost, so a plugin drops whatever it kept here;
 *  - "pg.not_listening" when the connection is lost (or the core stops it): until the next
 *    "pg.listening" no notification arrives, so a plugin keeps nothing meanwhile.
 *
 *  The three run on the core's listening thread, one at a time, in that order. Plugins cannot
 *  fire events under "pg." (the core refuses them), so only the database's own word reaches
 *  these hooks. A channel is a lower-case identifier ([a-z_][a-z0-9_]*, at most 63 characters);
 *  the core refuses a hook on any other. */
#pragma once
#include <string>
#include <string_view>

namespace berth {

inline constexpr std::string_view kPgNotifyPrefix = "pg.notify:";
inline constexpr std::string_view kPgListeningEvent = "pg.listening";
inline constexpr std::string_view kPgNotListeningEvent = "pg.not_listening";
/** Every event under it is the core's own: plugins may hook them, never fire them. */
inline constexpr std::string_view kPgEventPrefix = "pg.";

/** PostgreSQL's longest identifier (NAMEDATALEN - 1). */
inline constexpr size_t kPgChannelMaxLength = 63;

/** Whether `channel` is one the core listens on: [a-z_][a-z0-9_]*, 1 to 63 characters. */
inline bool isPgChannel(std::string_view channel) {
  if (channel.empty() || channel.size() > kPgChannelMaxLength) return false;
  for (size_t i = 0; i < channel.size(); ++i) {
    const char c = channel[i];
    const bool letter = (c >= 'a' && c <= 'z') || c == '_';
    if (!letter && (i == 0 || c < '0' || c > '9')) return false;
  }
  return true;
}

/** "pg.notify:<channel>", the event of a channel's notifications. */
inline std::string pgNotifyEvent(std::string_view channel) {
  return std::string(kPgNotifyPrefix) + std::string(channel);
}

}  // namespace berth
