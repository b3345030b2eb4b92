// The work part: its services, config key, job, start and stop (work_part.hpp).
#include "work_part.hpp"

#include <berth/util/unix_time.hpp>

#include <berth/services/runtime_commands.hpp>
#include <berth/services/runtime_shared_trees.hpp>

#include <chrono>
#include <thread>

#include "parts.hpp"

namespace berth::runtime {

void WorkPart::start(unsigned build_uid) {
  const UidRange& projects = ctx_.config.uid_range;
  if (build_uid >= projects.first && build_uid <= projects.last)
    throw berth::Error("runtime.shared_build_uid " + std::to_string(build_uid) +
                       " is inside runtime.uid_range, whose uids belong to projects; choose "
                       "another (the default is 65534, nobody)");
  SharedTreesSettings settings;
  settings.dir = ctx_.config.shared_dir;
  settings.build_as = RunAs{build_uid, build_uid};
  settings.sandbox = ctx_.config.sandbox;
  const berth::Logger log = ctx_.logger();
  settings.info = [log](const std::string& line) { log.info("runtime: " + line); };
  trees_ = std::make_unique<SharedTrees>(std::move(settings));
  trees_->sweep();
}

void WorkPart::stopWork() {
  stopping_ = true;
  if (trees_) trees_->cancel();
}

void WorkPart::watchStop(berth::JobContext& job) {
  // Holds a job thread only while there is something to stop.
  while (!stopping_ && (slots_.taken() > 0 || (trees_ && trees_->building()))) {
    if (job.stopRequested()) {
      stopWork();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void WorkPart::stop() {
  stopWork();
  if (trees_) trees_->stop();
}

void WorkPart::platformLog(const std::string& project_id, std::string message) {
  LogEntry entry;
  entry.at = berth::unixSeconds();
  entry.kind = "platform";
  entry.message = std::move(message);
  ctx_.logs.add(project_id, std::move(entry));
}

void registerWork(berth::Registrar& r, Context& context) {
  r.configInt("shared_build_uid", 65534,
              "the uid (and gid) shared trees are built as when berthd is root; never one of "
              "uid_range (65534 is nobody)",
              berth::IntRange{1, (1LL << 31) - 1});
  auto part = std::make_shared<WorkPart>(context);
  context.work_part = part;

  berth::ServiceMethods commands;
  commands[std::string(berth::runtime_commands::kRun)] = [part](const nlohmann::json& request) {
    return runCommand(*part, request);
  };
  r.service(std::string(berth::runtime_commands::kService), std::move(commands));

  berth::ServiceMethods trees;
  trees[std::string(berth::runtime_shared_trees::kEnsure)] = [part](const nlohmann::json& request) {
    return ensureSharedTree(*part, request);
  };
  trees[std::string(berth::runtime_shared_trees::kGet)] = [part](const nlohmann::json& request) {
    return getSharedTree(*part, request);
  };
  r.service(std::string(berth::runtime_shared_trees::kService), std::move(trees));

  r.job("work_stop_watch", std::chrono::seconds(1),
        [part](berth::JobContext& job) { part->watchStop(job); });
}

void startWork(Context& context) {
  if (!context.work_part) return;
  context.work_part->start(
      static_cast<unsigned>(context.services->configValue<std::int64_t>("shared_build_uid")));
}

void stopWork(Context& context) {
  if (context.work_part) context.work_part->stop();
}

}  // namespace berth::runtime
