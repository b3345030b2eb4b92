#include "n8n_installer.hpp"

#include <berth/services/projects_directory.hpp>
#include <berth/services/projects_secrets.hpp>
#include <berth/services/runtime_apps.hpp>
#include <berth/services/runtime_releases.hpp>
#include <berth/services/runtime_shared_trees.hpp>
#include <berth/services/templates_installs.hpp>
#include <berth/util/payload_files.hpp>

#include <openssl/rand.h>

#include <thread>

#include "payload_pins.hpp"

namespace berth::n8n {

namespace {

using berth::Error;
using Clock = std::chrono::steady_clock;

constexpr const char* kSecrets = "projects.secrets.v1";
constexpr const char* kDirectory = "projects.directory.v1";
constexpr const char* kTrees = "runtime.shared_trees.v1";
constexpr const char* kApps = "runtime.apps.v1";
constexpr const char* kReleases = "runtime.releases.v1";
constexpr const char* kKeyName = "N8N_ENCRYPTION_KEY";

// 32 random bytes as 64 hex digits: n8n's own keys are of that strength.
std::string randomKey() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw Error(500, "no random bytes for the key");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned char b : bytes) {
    key.push_back(kHex[b >> 4]);
    key.push_back(kHex[b & 15]);
  }
  return key;
}

// The last non-empty line of a build's output, for a progress line.
std::string lastLine(const std::string& log) {
  std::string_view text(log);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const auto at = text.rfind('\n');
  std::string line(at == std::string_view::npos ? text : text.substr(at + 1));
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

void progress(const berth::InstallContext& context, const std::string& message) {
  berth::templates_installs::reportProgress(context, message.substr(0, 1000));
  context.log(berth::LogLevel::Info, message);
}

// The shared tree for these pins, built once per server: waits while it builds.
berth::runtime_shared_trees::Tree readyTree(const berth::InstallContext& context,
                                            const std::filesystem::path& payload,
                                            const PayloadPins& pins,
                                            const N8nInstaller::Timing& timing) {
  namespace trees = berth::runtime_shared_trees;
  trees::EnsureRequest ensure;
  ensure.name = pins.treeName();
  ensure.source = payload.string();
  ensure.command = {"sh", "build.sh"};
  ensure.timeout_seconds = 3600;
  trees::Tree tree =
      trees::parseTree(context.call(kTrees, trees::kEnsure, trees::toJson(ensure)), trees::kEnsure);
  const auto began = Clock::now();
  auto told = began - timing.progress_every;
  while (tree.state == trees::kBuilding) {
    const auto waited = Clock::now() - began;
    if (waited > timing.tree_deadline)
      throw Error(504, "n8n " + pins.n8n_version + " is still being built for this server after " +
                           std::to_string(timing.tree_deadline.count()) +
                           " s; run the install again later");
    if (Clock::now() - told >= timing.progress_every) {
      told = Clock::now();
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(waited).count();
      std::string line = "building n8n " + pins.n8n_version + " on Node " + pins.node_version +
                         " for this server, once for every n8n project (npm ci of about 2,200 "
                         "packages, 3 GB; 5 to 10 minutes): " +
                         std::to_string(seconds) + " s so far";
      if (std::string last = lastLine(tree.log); !last.empty()) line += "; " + last;
      progress(context, line);
    }
    std::this_thread::sleep_for(timing.poll);
    tree = trees::parseTree(context.call(kTrees, trees::kGet, {{"name", ensure.name}}));
  }
  if (tree.state != trees::kReady)
    throw Error(502, "n8n " + pins.n8n_version + " could not be built for this server: " +
                         tree.error.value_or("the build failed") +
                         "; run the install again to retry");
  return tree;
}

}  // namespace

berth::InstallerInfo N8nInstaller::info() const {
  return {"n8n",
          "n8n",
          "Workflow automation with a visual editor, webhooks and hundreds of integrations.",
          "1.0.0",
          {kSecrets, kDirectory, kTrees, kApps, kReleases,
           std::string(berth::templates_installs::kService)},
          {}};
}

nlohmann::json N8nInstaller::install(berth::InstallContext& context, const nlohmann::json&) {
  const std::filesystem::path payload = context.payloadDir();
  const PayloadPins pins = readPayloadPins(payload);
  progress(context, "installing n8n " + pins.n8n_version + " on Node " + pins.node_version);

  const std::string home = readyTree(context, payload, pins, timing_).path;

  // Generated once: a second install, or a new release, keeps it (n8n's saved credentials are
  // sealed with it, and n8n refuses to start with another).
  berth::projects_secrets::SetRequest key;
  key.name = kKeyName;
  key.value = randomKey();
  key.only_if_absent = true;
  const berth::projects_secrets::Stored stored = berth::projects_secrets::parseStored(
      context.call(kSecrets, "set", berth::projects_secrets::toJson(key)));

  berth::runtime_apps::StartOptions options;
  options.readiness_path = kReadinessPath;
  options.start_timeout_seconds = kStartTimeoutSeconds;
  options.read_only_paths = {home};
  options.environment = {{"BERTH_N8N_HOME", home}};
  context.call(kApps, berth::runtime_apps::kSetStartOptions, berth::runtime_apps::toJson(options));

  // Every GET webhook runs a workflow: the edge must never answer one from its cache.
  context.call(kDirectory, berth::projects_directory::kSetCache,
               berth::projects_directory::toJson(
                   berth::projects_directory::SetCacheRequest{"", false, std::nullopt}));

  progress(context, "making the n8n release");
  namespace releases = berth::runtime_releases;
  releases::CreateRequest create;
  create.files = {{"start.sh", berth::payload::readFile(payload / "start.sh", "n8n"), true},
                  {"BERTH-N8N.txt",
                   "n8n " + pins.n8n_version + " on Node " + pins.node_version + ", from " + home +
                       " (read-only, shared by every n8n project on this server)\n",
                   false}};
  create.cmd = "sh start.sh";
  const releases::Release created = releases::parseRelease(
      context.call(kReleases, releases::kCreate, releases::toJson(create)), releases::kCreate);
  releases::WaitRequest wait{"", created.id, timing_.release_wait_seconds};
  const releases::Release release = releases::parseRelease(
      context.call(kReleases, releases::kWait, releases::toJson(wait)), releases::kWait);
  if (release.status != releases::kLive && release.status != releases::kReady)
    throw Error(502, "the n8n release " + release.id +
                         " did not become ready: " + release.error.value_or(release.status));

  const std::string url = context.project().value("url", "");
  return {{"schedules", nlohmann::json::array()},
          {"secrets", {kKeyName}},
          {"key_generated", stored.stored},
          {"release", {{"id", release.id}, {"status", release.status}}},
          {"n8n", {{"version", pins.n8n_version}, {"node", pins.node_version}, {"tree", home}}},
          {"next", "open " + url + " and create the owner account: the first visitor does"}};
}

}  // namespace berth::n8n
