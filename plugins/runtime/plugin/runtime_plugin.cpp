// The runtime plugin: releases, the project gateway, scale to zero, the edge cache and logs.
// README.md beside this folder lists every route, answer, service and key.
#include <unistd.h>
#include <berth/plugin.hpp>

#include "context.hpp"
#include "parts.hpp"
#include "release_build.hpp"
#include "shared_folder.hpp"
#include "start_command_hooks.hpp"
#include "start_commands_service.hpp"

#include "berth_migrations_runtime.inc"

namespace berth::runtime {

class RuntimePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("idle_stop_seconds", 900,
                "a project's process is stopped after this long without a request",
                berth::IntRange{1, 365LL * 24 * 3600});
    r.configInt("keep_releases", 3,
                "releases with files kept per project; older ones are pruned (410 on promote)",
                berth::IntRange{1, 1000});
    r.configInt("max_release_mb", 1024, "a release may unpack to at most this many MB",
                berth::IntRange{1, 1024 * 1024});
    r.configInt("max_release_files", 100000, "a release may hold at most this many entries",
                berth::IntRange{1, 100000000});
    r.configInt("max_unpack_ratio", 100,
                "a release may unpack to at most this many times its compressed size",
                berth::IntRange{1, 1000000});
    r.configInt("build_timeout_seconds", 600, "a build step (npm ci ...) is stopped after this",
                berth::IntRange{1, 24 * 3600});
    r.configInt("start_timeout_seconds", 30,
                "an app that does not accept connections within this fails its start (503)",
                berth::IntRange{1, 3600});
    r.configInt("stop_grace_seconds", 5, "SIGTERM, then SIGKILL after this long",
                berth::IntRange{0, 600});
    r.configString("run_as", "",
                   "replaced by uid_range (every project runs as its own uid); refused when set");
    r.configString("uid_range", "200000-265535",
                   "uids (and gids, the same number) given to projects, one each: first-last");
    r.configBool("sandbox", true,
                 "run apps, php-cgi and builds inside bubblewrap, seeing only their release, "
                 "their writable folder and the system's files");
    r.configBool("unsafe_run_without_sandbox", false,
                 "UNSAFE: run apps and builds without bubblewrap when it cannot be used (or "
                 "sandbox is false); every tenant can then read the others' files");
    r.configString("readiness_path", "",
                   "an app is ready when GET <path> answers below 400; empty: when it accepts "
                   "connections");
    r.configInt("log_keep", 2000, "log entries kept per project", berth::IntRange{10, 1000000});
    r.configString("shared_dir", "",
                   "folder of what projects share read-only (shared trees, start options' "
                   "read_only_paths); relative to data_dir; empty: <data_dir>/shared");
    r.migrations(kBerthMigrations, kBerthMigrationCount);

    registerReleases(r, context_);
    registerLogs(r, context_);
    registerStatusService(r, context_);
    registerStartCommandsService(r);
    registerStartCommandHooks(r);
    registerReleasesService(r, context_);
    // The store, made in start(), keeps live releases while the core listens for their changes.
    ReleaseStore::LiveKept::listen(r, kLiveChannel, [this] {
      return context_.releases ? &context_.releases->liveKept() : nullptr;
    });
    registerAppsService(r, context_);
    registerGateway(r, context_);
    registerWork(r, context_);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    context_.data_dir = services.coreSetting("data_dir").value_or("");
    if (context_.data_dir.empty() || context_.data_dir[0] != '/')
      throw berth::Error("runtime: data_dir must be an absolute path");
    RuntimeConfig& c = context_.config;
    c.idle_stop = std::chrono::seconds(services.configValue<int64_t>("idle_stop_seconds"));
    c.keep_releases = static_cast<int>(services.configValue<int64_t>("keep_releases"));
    c.max_unpack_ratio =
        static_cast<std::uint64_t>(services.configValue<int64_t>("max_unpack_ratio"));
    c.max_release_bytes =
        static_cast<std::uint64_t>(services.configValue<int64_t>("max_release_mb")) * 1024 * 1024;
    c.max_release_files =
        static_cast<std::uint64_t>(services.configValue<int64_t>("max_release_files"));
    c.build_timeout = std::chrono::seconds(services.configValue<int64_t>("build_timeout_seconds"));
    c.start_timeout = std::chrono::seconds(services.configValue<int64_t>("start_timeout_seconds"));
    c.stop_grace = std::chrono::seconds(services.configValue<int64_t>("stop_grace_seconds"));
    if (!services.configValue<std::string>("run_as").empty())
      throw berth::Error(
          "runtime.run_as was replaced by runtime.uid_range: every project runs as its own uid; "
          "remove run_as");
    const std::string range = services.configValue<std::string>("uid_range");
    auto uids = parseUidRange(range);
    if (!uids)
      throw berth::Error(
          "runtime.uid_range must be 'first-last' (1 <= first <= last < 2^31), not '" + range +
          "'");
    c.uid_range = *uids;
    chooseSandbox(services.configValue<bool>("sandbox"),
                  services.configValue<bool>("unsafe_run_without_sandbox"), services.logger());
    std::string readiness = services.configValue<std::string>("readiness_path");
    if (!readiness.empty()) {
      if (readiness[0] != '/') throw berth::Error("runtime.readiness_path must start with '/'");
      c.readiness_path = readiness;
    }
    c.log_keep = static_cast<int>(services.configValue<int64_t>("log_keep"));
    c.releases_dir = context_.data_dir + "/releases";
    c.shared_dir = sharedDir(context_.data_dir, services.configValue<std::string>("shared_dir"));

    context_.releases = std::make_unique<ReleaseStore>(services);
    context_.apps = std::make_unique<ProjectApps>(context_.logs);
    context_.identities = std::make_unique<ProjectIdentities>(services, c.uid_range,
                                                              context_.data_dir + "/runtime/homes");
    startWork(context_);
  }

  void stop() override {
    stopWork(context_);
    stopGateway(context_);
    stopReleases(context_);
    context_.apps.reset();  // stops every app of this node
    if (context_.releases) context_.releases->stopKeepingLive();
  }

 private:
  // Sandbox on (and usable), refused with a reason, or off because the operator said it is
  // unsafe; the log says which at every start.
  void chooseSandbox(bool wanted, bool unsafe, const berth::Logger& log) {
    RuntimeConfig& c = context_.config;
    c.unsafe_without_sandbox = unsafe;
    if (!wanted && !unsafe)
      throw berth::Error(
          "runtime.sandbox: false needs runtime.unsafe_run_without_sandbox: true (apps and "
          "builds of every tenant would then see each other's files)");
    std::optional<std::string> problem;
    if (wanted) {
      problem = sandboxProblem(SandboxOptions{}, RunAs{c.uid_range.first, c.uid_range.first});
      if (!problem) {
        c.sandbox = SandboxOptions{};
        log.info("runtime: apps and builds run in bubblewrap, each project as its own uid");
        return;
      }
    }
    const std::string why = problem ? "the sandbox is not available: " + *problem
                                    : std::string("runtime.sandbox is false");
    if (unsafe) {
      log.warn("runtime: " + why +
               "; apps and builds run WITHOUT it (runtime.unsafe_run_without_sandbox): a "
               "tenant's code can read every other tenant's release, and more");
      return;
    }
    c.sandbox_refusal = why +
                        "; apps and builds are not run without it (install bubblewrap and allow "
                        "user namespaces, or set runtime.unsafe_run_without_sandbox: true)";
    log.error("runtime: " + *c.sandbox_refusal);
  }

  Context context_;
};

}  // namespace berth::runtime

BERTH_PLUGIN(berth::runtime::RuntimePlugin, "runtime", "0.1.0",
             "releases, the project gateway, scale to zero, the edge cache and logs",
             BERTH_KIND_FEATURE, "projects", "storage")
