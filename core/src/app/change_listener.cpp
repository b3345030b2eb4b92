#include "app/change_listener.hpp"

#include <berth/pg_notify_events.hpp>

#include <vector>

#include <nlohmann/json.hpp>

#include "auth/auth_cache.hpp"
#include "log/logging.hpp"
#include "plugin/plugin_manager.hpp"

namespace berth::core {

ChangeListener::ChangeListener(std::string database_url, AuthCache& auth, PluginManager& plugins)
    : url_(std::move(database_url)), auth_(auth), plugins_(plugins) {}

void ChangeListener::start() {
  if (listener_) return;
  for (const std::string& channel : plugins_.notifyChannels()) plugin_channels_.insert(channel);
  std::vector<std::string> channels{kAuthChannel};
  for (const std::string& channel : plugin_channels_)
    if (channel != kAuthChannel) channels.push_back(channel);
  const std::string listening =
      nlohmann::json{
          {"channels", std::vector<std::string>(plugin_channels_.begin(), plugin_channels_.end())}}
          .dump();
  auto log = getLogger("core");
  listener_ = std::make_unique<PgListener>(
      url_, std::move(channels),
      PgListener::Callbacks{
          .connected =
              [this, listening] {
                auth_.heardListening();
                if (!plugin_channels_.empty())
                  plugins_.tellHook(std::string(berth::kPgListeningEvent), listening);
              },
          .notified =
              [this](std::string_view channel, std::string_view payload) {
                if (channel == kAuthChannel) auth_.heard(payload);
                if (!plugin_channels_.contains(std::string(channel))) return;
                // A payload is text in the database's encoding: never let a stray byte stop it.
                const std::string event =
                    nlohmann::json{{"channel", channel}, {"payload", payload}}.dump(
                        -1, ' ', false, nlohmann::json::error_handler_t::replace);
                plugins_.tellHook(berth::pgNotifyEvent(channel), event);
              },
          .disconnected =
              [this] {
                auth_.heardNotListening();
                if (!plugin_channels_.empty())
                  plugins_.tellHook(std::string(berth::kPgNotListeningEvent), "{}");
              },
          .unreachable =
              [log] {
                logLine(*log, spdlog::level::warn, "", "",
                        "cannot listen for changes on the control-plane database: the auth "
                        "cache and the plugins' kept answers are off, every request asks the "
                        "database");
              },
      });
  if (!listener_->start()) listener_.reset();
}

void ChangeListener::stop() {
  if (listener_) listener_->stop();
}

}  // namespace berth::core
