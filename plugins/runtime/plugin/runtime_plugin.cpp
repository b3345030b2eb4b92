// The runtime plugin: releases, the project gateway, scale to zero, the edge cache and logs
// (issue 6). README.md beside this folder lists every route, answer, service and key.
#include <unistd.h>
#include <berth/plugin.hpp>

#include "context.hpp"
#include "parts.hpp"

#include "berth_migrations_runtime.inc"

namespace berth::runtime {

class RuntimePlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configInt("idle_stop_seconds", 900,
                "a project's process is stopped after this long without a request",
                berth::IntRange{1, 365LL * 24 * 3600});
    r.configInt("keep_releases", 10,
                "releases with files kept per project; older ones are pruned (410 on promote)",
                berth::IntRange{1, 1000});
    r.configInt("max_release_mb", 1024, "a release may unpack to at most this many MB",
                berth::IntRange{1, 1024 * 1024});
    r.configInt("max_release_files", 100000, "a release may hold at most this many entries",
                berth::IntRange{1, 100000000});
    r.configInt("build_timeout_seconds", 600, "a build step (npm ci ...) is stopped after this",
                berth::IntRange{1, 24 * 3600});
    r.configInt("start_timeout_seconds", 30,
                "an app that does not accept connections within this fails its start (503)",
                berth::IntRange{1, 3600});
    r.configInt("stop_grace_seconds", 5, "SIGTERM, then SIGKILL after this long",
                berth::IntRange{0, 600});
    r.configString("run_as", "",
                   "the user apps and builds run as; empty: berthd's own user, or 'nobody' "
                   "when berthd runs as root");
    r.configBool("sandbox", false,
                 "run apps inside bubblewrap, seeing only their release and the system's files");
    r.configString("readiness_path", "",
                   "an app is ready when GET <path> answers below 400; empty: when it accepts "
                   "connections");
    r.configInt("log_keep", 2000, "log entries kept per project", berth::IntRange{10, 1000000});
    r.migrations(kBerthMigrations, kBerthMigrationCount);

    registerReleases(r, context_);
    registerLogs(r, context_);
    registerStatusService(r, context_);
    registerGateway(r, context_);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    context_.data_dir = services.coreSetting("data_dir").value_or("");
    if (context_.data_dir.empty() || context_.data_dir[0] != '/')
      throw berth::Error("runtime: data_dir must be an absolute path");
    const nlohmann::json& config = services.config();
    RuntimeConfig& c = context_.config;
    c.idle_stop = std::chrono::seconds(config.value("idle_stop_seconds", int64_t{900}));
    c.keep_releases = static_cast<int>(config.value("keep_releases", int64_t{10}));
    c.max_release_bytes =
        static_cast<std::uint64_t>(config.value("max_release_mb", int64_t{1024})) * 1024 * 1024;
    c.max_release_files =
        static_cast<std::uint64_t>(config.value("max_release_files", int64_t{100000}));
    c.build_timeout = std::chrono::seconds(config.value("build_timeout_seconds", int64_t{600}));
    c.start_timeout = std::chrono::seconds(config.value("start_timeout_seconds", int64_t{30}));
    c.stop_grace = std::chrono::seconds(config.value("stop_grace_seconds", int64_t{5}));
    std::string run_as = config.value("run_as", "");
    if (run_as.empty() && ::geteuid() == 0) run_as = "nobody";
    if (!run_as.empty()) c.run_as = run_as;
    if (config.value("sandbox", false)) c.sandbox = SandboxOptions{};
    std::string readiness = config.value("readiness_path", "");
    if (!readiness.empty()) {
      if (readiness[0] != '/') throw berth::Error("runtime.readiness_path must start with '/'");
      c.readiness_path = readiness;
    }
    c.log_keep = static_cast<int>(config.value("log_keep", int64_t{2000}));
    c.releases_dir = context_.data_dir + "/releases";

    context_.releases = std::make_unique<ReleaseStore>(services);
    context_.releases->startKeepingLive(services.coreSetting("database.url").value_or(""));
    context_.apps = std::make_unique<ProjectApps>(context_.logs);
  }

  void stop() override {
    stopGateway(context_);
    stopReleases(context_);
    context_.apps.reset();  // stops every app of this node
    if (context_.releases) context_.releases->stopKeepingLive();
  }

 private:
  Context context_;
};

}  // namespace berth::runtime

BERTH_PLUGIN(berth::runtime::RuntimePlugin, "runtime", "0.1.0",
             "releases, the project gateway, scale to zero, the edge cache and logs",
             BERTH_KIND_FEATURE, "projects", "storage")
