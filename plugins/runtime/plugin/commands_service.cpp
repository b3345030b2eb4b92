// runtime.commands.v1 `run` (<berth/services/runtime_commands.hpp>): a one-off command in a
// release of a project, run as the project's app is (gateway_app_spec: the same uid, writable
// folder, environment and sandbox), with the release folder read-only as its working folder.
// The caller's thread waits for it (an installer's install thread); at most
// runtime_commands::kMaxRunning run at once on this berthd.
#include <berth/services/projects_directory.hpp>
#include <berth/services/runtime_commands.hpp>

#include "gateway_app_spec.hpp"
#include "release_part.hpp"
#include "work_part.hpp"

namespace berth::runtime {

namespace {

namespace contract = berth::runtime_commands;
using berth::Error;

// The release the command runs in: the one named, or the live one.
ReleaseRecord releaseFor(const Context& ctx, const Project& project,
                         const std::optional<std::string>& id) {
  if (!id) {
    auto live = ctx.releases->live(project.id);
    if (!live) throw Error::conflict(project.name + " has no live release");
    return *live;
  }
  auto found = ctx.releases->find(project.id, *id);
  if (!found) throw Error::notFound("no release called " + *id);
  if (found->status == "pruned")
    throw Error::gone("release " + *id + " was pruned: its files are gone");
  if (found->status != "live" && found->status != "ready")
    throw Error::conflict("release " + *id + " is not ready");
  return *found;
}

}  // namespace

nlohmann::json runCommand(WorkPart& part, const nlohmann::json& request) {
  Context& ctx = part.context();
  contract::RunRequest req = contract::parseRunRequest(request);
  // Refused (503) rather than run unprotected, as the app would be.
  if (ctx.config.sandbox_refusal) throw Error::unavailable(*ctx.config.sandbox_refusal);
  const Project project = berth::ProjectsDirectory(*ctx.services).getById(req.project_id);
  const ReleaseRecord release = releaseFor(ctx, project, req.release_id);
  std::optional<CommandSlots::Slot> slot = part.slots().take();
  if (!slot) throw Error::unavailable("too many commands are running; try again shortly");
  if (part.stopping()) throw Error::unavailable("berthd is stopping; the command was not run");

  // Built on another node: its folder is made here first (503 when it cannot be).
  if (ctx.releases_part) ctx.releases_part->fetch().ensure(project.id, release.id);
  const AppSpec app = appSpecFor(ctx, project, release);
  OneOffCommand command;
  command.argv = req.argv;
  command.release_dir = app.release_dir;
  command.home = app.home;
  command.environment = app.environment;  // its start options' environment included
  command.read_only_paths = app.read_only_paths;
  command.run_as = app.run_as;
  command.sandbox = app.sandbox;
  command.timeout = std::chrono::seconds(req.timeout_seconds);
  command.input = std::move(req.input);
  command.cancel = &part.stopping();
  if (app.warn_unsandboxed && !app.sandbox)
    part.platformLog(project.id,
                     "WARNING: the command " + req.argv[0] +
                         " runs outside the sandbox (runtime.unsafe_run_without_sandbox)");

  const OneOffOutcome outcome = runOneOffCommand(command);
  const std::string line = commandLogLine(req.argv[0], outcome, command.timeout);
  part.platformLog(project.id, line);
  ctx.logger().withProject(project.name).info(line + " (release " + release.id + ")");
  if (outcome.start_error) {
    if (outcome.start_error->find("no such program") != std::string::npos)
      throw Error::badRequest(*outcome.start_error);
    throw Error(500, *outcome.start_error);
  }
  if (outcome.cancelled) throw Error::unavailable("berthd is stopping; the command was stopped");
  return contract::toJson(outcome.ran);
}

}  // namespace berth::runtime
