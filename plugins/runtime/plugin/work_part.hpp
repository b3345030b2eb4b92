// Work the runtime does for installers (and other plugins) beside serving: one-off commands in
// a release (runtime.commands.v1, commands_service.cpp) and the shared trees
// (runtime.shared_trees.v1, shared_trees_service.cpp). This part's state: how many commands
// run, the shared trees of this node, and berthd stopping, noticed early.
#pragma once
#include <berth/plugin.hpp>

#include <atomic>
#include <memory>
#include <string>

#include "context.hpp"
#include "one_off_command.hpp"
#include "shared_trees.hpp"

namespace berth::runtime {

class WorkPart {
 public:
  explicit WorkPart(Context& context) : ctx_(context) {}

  Context& context() { return ctx_; }
  CommandSlots& slots() { return slots_; }
  // Made by start() (runtime.shared_dir); null before.
  SharedTrees* trees() { return trees_.get(); }
  // Set once berthd is stopping: running commands stop, new ones are refused.
  const std::atomic<bool>& stopping() const { return stopping_; }

  // At plugin start: the shared trees of runtime.shared_dir, built as `build_uid` when root;
  // the leftovers of builds an earlier berthd did not finish are removed.
  void start(unsigned build_uid);
  // The job work_stop_watch: while a command runs or a tree builds it holds its job thread and
  // stops them once the core asks jobs to stop. That comes before any plugin's stop(), and a
  // template plugin that stops before this one joins its installs, which may be waiting here.
  void watchStop(berth::JobContext& job);
  // At plugin stop: commands and builds are stopped, the build threads joined.
  void stop();

  // A line in the project's own log (kind platform), as the runtime's other events.
  void platformLog(const std::string& project_id, std::string message);

 private:
  void stopWork();

  Context& ctx_;
  CommandSlots slots_{berth::runtime_commands::kMaxRunning};
  std::atomic<bool> stopping_{false};
  std::unique_ptr<SharedTrees> trees_;
};

// runtime.commands.v1 `run` (commands_service.cpp).
nlohmann::json runCommand(WorkPart& part, const nlohmann::json& request);
// runtime.shared_trees.v1 `ensure` and `get` (shared_trees_service.cpp).
nlohmann::json ensureSharedTree(WorkPart& part, const nlohmann::json& request);
nlohmann::json getSharedTree(WorkPart& part, const nlohmann::json& request);

}  // namespace berth::runtime
