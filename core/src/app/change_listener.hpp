// The core's one LISTEN connection to the control-plane database: the auth cache's channel and
// every channel a plugin hooks "pg.notify:<channel>" for (<berth/pg_notify_events.hpp>). What it
// hears on berth_auth goes to the auth cache; what it hears on a plugin's channel is fired as
// "pg.notify:<channel>" {"channel", "payload"}; each (re)connection fires "pg.listening" and each
// loss "pg.not_listening", so plugins keep what they read only while a change would reach them.
// Plugins are never handed the database's URL to listen themselves.
//
// Started once every plugin has started, stopped before any plugin stops: hooks never run
// outside a plugin's start() and stop().
#pragma once
#include <memory>
#include <set>
#include <string>

#include "db/pg_listener.hpp"

namespace berth::core {

class AuthCache;
class PluginManager;

class ChangeListener {
 public:
  ChangeListener(std::string database_url, AuthCache& auth, PluginManager& plugins);
  ~ChangeListener() { stop(); }
  ChangeListener(const ChangeListener&) = delete;
  ChangeListener& operator=(const ChangeListener&) = delete;

  void start();
  // Joins the listening thread, after "pg.not_listening" when it was listening.
  void stop();

 private:
  std::string url_;
  AuthCache& auth_;
  PluginManager& plugins_;
  std::set<std::string> plugin_channels_;
  std::unique_ptr<PgListener> listener_;
};

}  // namespace berth::core
