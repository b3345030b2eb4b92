// Secret changes made on any node (header-only). The projects plugin's triggers (its migration 5)
// send NOTIFY berth_project_secrets with the project's id when a secret row changes; the core hands
// each to this node's hook on its listening thread, which must stay quick. So the hook only
// notes the project here, and the gateway's secret_changes job takes the notes and restarts
// the apps running here with the new environment (Gateway::refreshEnvironment, which skips an
// app whose environment is already the new one: the node that took the request restarted it
// at project.secret_changed, and must not restart it twice).
#pragma once
#include <berth/pg_notify.hpp>
#include <berth/registrar.hpp>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace berth::runtime {

inline constexpr const char* kSecretsChannel = "berth_project_secrets";

class SecretChanges {
 public:
  struct Pending {
    // Every app running here is checked: notifications may have been lost (the core listens
    // again after losing its connection) or the table was truncated.
    bool all = false;
    std::set<std::string> projects;  // by id
    bool empty() const { return !all && projects.empty(); }
  };

  void changed(std::string_view project_id) {  // "*": every project
    std::lock_guard lock(mutex_);
    if (project_id.empty() || project_id == "*")
      pending_.all = true;
    else
      pending_.projects.emplace(project_id);
  }
  void everything() {
    std::lock_guard lock(mutex_);
    pending_.all = true;
  }
  Pending take() {  // what came since the last take
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, Pending{});
  }

  // Hooks pg.notify:berth_project_secrets and pg.listening to `changes` (in registerAll).
  static void listen(berth::Registrar& r, std::shared_ptr<SecretChanges> changes) {
    berth::PgNotifyCallbacks callbacks;
    callbacks.notified = [changes](std::string_view payload) { changes->changed(payload); };
    // Listening again after a lost connection: a change meanwhile was not heard.
    callbacks.listening = [changes] { changes->everything(); };
    berth::listenTo(r, kSecretsChannel, std::move(callbacks));
  }

 private:
  std::mutex mutex_;
  Pending pending_;
};

}  // namespace berth::runtime
