/** @file
 *  Hearing PostgreSQL's NOTIFY on the control-plane database through the core (header-only, no
 *  ABI, no libpq): berth::listenTo(registrar, channel, callbacks) hooks the events of
 *  <berth/pg_notify_events.hpp>, so a plugin never holds the database's URL nor a connection of
 *  its own. A plugin that keeps rows of the control-plane database in memory keeps them only
 *  between `listening` and `notListening`, drops them on `notified` (a trigger on its tables
 *  sends pg_notify, see core.notify_key_change in the SDK's README), and so sees a change made
 *  on any node within milliseconds. <berth/util/kept_answers.hpp> is that pattern as one piece.
 *
 *  THREADING: the callbacks run on the core's listening thread, one at a time; they must be
 *  quick (every plugin's channels share that thread) and must not throw. */
#pragma once
#include <berth/pg_notify_events.hpp>
#include <berth/registrar.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace berth {

struct PgNotifyCallbacks {
  /** The core listens on the channel (again): anything may have changed meanwhile. */
  std::function<void()> listening;
  /** One notification on the channel, with the text sent with it ("" when none). */
  std::function<void(std::string_view payload)> notified;
  /** The core's connection is lost (or stopped): no notification arrives until `listening`. */
  std::function<void()> notListening;
};

/** Registers the hooks for `channel` (call in registerAll). The core listens once every plugin
 *  has started, so the callbacks never run before start(), nor after stop(). Throws
 *  berth::Error when the channel is not a lower-case identifier of up to 63 characters. */
inline void listenTo(Registrar& r, const std::string& channel, PgNotifyCallbacks callbacks) {
  if (!isPgChannel(channel))
    throw Error("cannot listen on \"" + channel +
                "\": a channel is a lower-case identifier of up to 63 characters");
  auto shared = std::make_shared<PgNotifyCallbacks>(std::move(callbacks));
  r.hook(pgNotifyEvent(channel), [shared](const nlohmann::json& event) {
    if (!shared->notified) return;
    const auto payload = event.find("payload");
    shared->notified(payload != event.end() && payload->is_string()
                         ? payload->get_ref<const std::string&>()
                         : std::string());
  });
  r.hook(std::string(kPgListeningEvent), [shared](const nlohmann::json&) {
    if (shared->listening) shared->listening();
  });
  r.hook(std::string(kPgNotListeningEvent), [shared](const nlohmann::json&) {
    if (shared->notListening) shared->notListening();
  });
}

}  // namespace berth
