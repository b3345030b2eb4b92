// Each project's data API settings (data_api_store.hpp), kept in memory between /_data requests:
// reading them cost every request a round trip to the control-plane database, a third of a
// by-id read's time. Kept as <berth/util/kept_answers.hpp> keeps answers: the triggers of migration
// 0002 send NOTIFY berth_data_api with the project's id, so a rotated key or a closed table
// stops working on every node as soon as the notification arrives (milliseconds), and on this
// node at once (the settings routes call changed()).
#pragma once
#include <berth/plugin.hpp>
#include <berth/util/kept_answers.hpp>

#include <optional>
#include <string>

#include "data_api_store.hpp"

namespace berth::sqlconsole {

class DataApiGrants {
 public:
  // Hooks the core's notifications on berth_data_api (registerAll); until the core listens,
  // nothing is kept.
  void listen(berth::Registrar& r) { kept_.listen(r); }
  void stop() { kept_.stop(); }

  // The project's settings, kept or read.
  DataApiGrant get(const berth::Db& db, const std::string& project_id) {
    return kept_.get(project_id, [&] { return loadDataApiGrant(db, project_id); });
  }
  // Only when kept (for a core thread, which must not wait on the database).
  std::optional<DataApiGrant> kept(const std::string& project_id) { return kept_.kept(project_id); }
  // The project's settings changed here: drop them now rather than when the notification comes.
  void changed(const std::string& project_id) { kept_.changed(project_id); }

 private:
  berth::KeptAnswers<DataApiGrant> kept_{"berth_data_api"};
};

}  // namespace berth::sqlconsole
