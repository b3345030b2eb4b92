// Every project's app process on this node, by project id: made on first use, fed to the log
// buffer (lines as `process` entries, supervisor events as `platform` ones); the gateway
// stops idle ones (IdleStop). The gateway asks `start` for each request to a process release;
// the answer comes through the callback, so no server thread waits for a wake.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "log_store.hpp"
#include "process_supervisor.hpp"

namespace berth::runtime {

class ProjectApps {
 public:
  explicit ProjectApps(LogBuffer& logs) : logs_(logs) {}
  ~ProjectApps();  // stops every app

  // Starts (or joins the start of, or finds running) the project's app.
  // A spec differing from the current one (a new live release, say) replaces the app: the
  // old process is stopped first.
  void start(const std::string& project_id, const AppSpec& spec, AppProcess::Done done);
  void stop(const std::string& project_id);  // and forgets it (release change, deletion)
  // The same, unless the app runs the release in `release_dir` (the release just made live):
  // a request that read the new release before the change was announced may have started it,
  // and stopping it would fail that request (503 "stopped before it was ready").
  void stopOtherThan(const std::string& project_id, const std::string& release_dir);
  std::optional<AppState> state(const std::string& project_id) const;
  std::shared_ptr<AppProcess> find(const std::string& project_id);  // setEnvironment, tests
  // The projects whose app is starting or running here (their owner claims are renewed).
  std::vector<std::string> active() const;

 private:
  struct Entry {
    std::vector<std::string> argv;
    std::string release_dir;
    std::shared_ptr<AppProcess> app;
  };
  std::shared_ptr<AppProcess> make(const std::string& project_id, const AppSpec& spec);

  LogBuffer& logs_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> apps_;
};

}  // namespace berth::runtime
