#include "data_api_grants.hpp"

namespace berth::sqlconsole {

DataApiGrants::~DataApiGrants() {
  stop();
}

void DataApiGrants::start(std::string database_url, berth::Logger logger) {
  listener_ = std::make_unique<berth::PgListener>(
      std::move(database_url), "berth_data_api",
      berth::PgListener::Callbacks{
          .connected =
              [this] {
                dropAll();  // anything may have changed while nobody listened
                listening_ = true;
              },
          .notified =
              [this](std::string_view project_id) {
                if (project_id.empty() || project_id == "*")
                  dropAll();
                else
                  changed(std::string(project_id));
              },
          .disconnected =
              [this] {
                listening_ = false;
                dropAll();
              },
          .unreachable =
              [logger] {
                logger.warn(
                    "data API settings are read on every request: cannot listen for their "
                    "changes on the control-plane database");
              },
      });
  if (!listener_->start()) listener_.reset();
}

void DataApiGrants::stop() {
  if (listener_) listener_->stop();
  listening_ = false;
}

DataApiGrant DataApiGrants::get(const berth::Db& db, const std::string& project_id) {
  uint64_t generation = 0;
  if (listening_) {
    std::lock_guard lock(mutex_);
    auto it = kept_.find(project_id);
    if (it != kept_.end()) return it->second;
    generation = generation_;
  }
  DataApiGrant grant = loadDataApiGrant(db, project_id);
  if (listening_) {
    std::lock_guard lock(mutex_);
    // A change since the read began may not be in it: keep nothing rather than an old answer.
    if (generation == generation_ && listening_) {
      if (kept_.size() >= kMaxEntries) kept_.clear();
      kept_[project_id] = grant;
    }
  }
  return grant;
}

std::optional<DataApiGrant> DataApiGrants::kept(const std::string& project_id) {
  if (!listening_) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = kept_.find(project_id);
  if (it == kept_.end()) return std::nullopt;
  return it->second;
}

void DataApiGrants::changed(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  ++generation_;
  kept_.erase(project_id);
}

void DataApiGrants::dropAll() {
  std::lock_guard lock(mutex_);
  ++generation_;
  kept_.clear();
}

}  // namespace berth::sqlconsole
