// The catalogue's routes:
//   GET  /app-templates                                   (no token) the catalogue
//   POST /projects/{name}/app-templates/{slug}/install    runs the installer through the core
//   GET  /projects/{name}/app-templates/{slug}/install    the latest install's state
// README.md beside this folder gives every answer.
#pragma once
#include <berth/plugin.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace berth::templates {

struct Settings {
  int answer_within_seconds = 20;  // then 202, and the install goes on
};

// The installs running on this node: their threads (joined at stop) and their rows (whose
// heartbeat the plugin's job renews).
class InstallWorkers {
 public:
  ~InstallWorkers() { joinAll(); }
  void run(int64_t run_id, std::function<void()> work);
  std::vector<int64_t> running() const;
  void joinAll();

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  // Joins the workers whose install ended (called with mutex_ held).
  void reapFinished();

  mutable std::mutex mutex_;
  std::set<int64_t> running_;
  std::vector<Worker> workers_;
};

struct Context {
  const berth::Services* services = nullptr;
  Settings settings;
  InstallWorkers workers;
};

void registerTemplateRoutes(berth::Registrar& r, Context& context);

// templates.installs.v1: an installer's progress on its running install. progress_service.cpp.
void registerProgressService(berth::Registrar& r, Context& context);

}  // namespace berth::templates
