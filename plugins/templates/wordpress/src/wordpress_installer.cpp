#include "wordpress_installer.hpp"

#include <berth/services/projects_directory.hpp>
#include <berth/services/projects_secrets.hpp>
#include <berth/services/runtime_apps.hpp>
#include <berth/services/runtime_commands.hpp>
#include <berth/services/runtime_releases.hpp>
#include <berth/services/runtime_shared_trees.hpp>
#include <berth/services/scheduler_schedules.hpp>
#include <berth/services/templates_installs.hpp>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <thread>
#include <vector>

#include "install_body.hpp"

namespace berth::wordpress {

namespace {

using berth::Error;
using Clock = std::chrono::steady_clock;
namespace commands = berth::runtime_commands;
namespace directory = berth::projects_directory;
namespace releases = berth::runtime_releases;
namespace schedules = berth::scheduler_schedules;
namespace secrets = berth::projects_secrets;
namespace trees = berth::runtime_shared_trees;

// 48 random bytes as 64 base64 characters: the length of the keys WordPress's own secret-key
// service makes, with more randomness in each character.
std::string randomKey() {
  unsigned char bytes[48];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw Error(500, "no random bytes for the keys");
  unsigned char text[65];
  const int n = EVP_EncodeBlock(text, bytes, sizeof bytes);
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
    start = end + 1;
  }
  return out;
}

std::string clip(std::string text, size_t most) {
  if (text.size() > most) text = text.substr(0, most) + "...";
  return text;
}

// Never let the password into a message, whatever WordPress printed.
std::string withoutPassword(std::string text, const std::string& password) {
  for (size_t at = text.find(password); at != std::string::npos; at = text.find(password, at))
    text.replace(at, password.size(), "[password]");
  return text;
}

void progress(const berth::InstallContext& context, const std::string& message) {
  berth::templates_installs::reportProgress(context, clip(message, 990));
  context.log(berth::LogLevel::Info, message);
}

// The tree for this pin and payload, built once per server: waits while it builds.
trees::Tree readyTree(const berth::InstallContext& context, const std::string& payload,
                      const std::string& name, const std::string& upstream,
                      const WordpressInstaller::Settings& settings,
                      const WordpressInstaller::Timing& timing) {
  trees::EnsureRequest ensure;
  ensure.name = name;
  ensure.source = payload;
  ensure.command = {"sh", "build.sh"};
  ensure.environment = {{"BERTH_WORDPRESS_VERSION", upstream},
                        {"BERTH_WORDPRESS_DIR", settings.wordpress_dir}};
  ensure.timeout_seconds = 600;
  trees::Tree tree = trees::parseTree(
      context.call(trees::kService, trees::kEnsure, trees::toJson(ensure)), trees::kEnsure);
  const auto began = Clock::now();
  auto told = began - timing.progress_every;
  while (tree.state == trees::kBuilding) {
    const auto waited = Clock::now() - began;
    if (waited > timing.tree_deadline)
      throw Error(504, "WordPress " + upstream + " is still being prepared for this server after " +
                           std::to_string(timing.tree_deadline.count()) +
                           " s; run the install again later");
    if (Clock::now() - told >= timing.progress_every) {
      told = Clock::now();
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(waited).count();
      std::string line = "preparing WordPress " + upstream +
                         " for this server, once for every WordPress project (a copy of "
                         "Debian's package with Berth's configuration and PostgreSQL drop-in): " +
                         std::to_string(seconds) + " s so far";
      if (auto last = lines(tree.log); !last.empty()) line += "; " + clip(last.back(), 300);
      progress(context, line);
    }
    std::this_thread::sleep_for(timing.poll);
    tree = trees::parseTree(context.call(trees::kService, trees::kGet, {{"name", name}}));
  }
  if (tree.state != trees::kReady)
    throw Error(502, "WordPress " + upstream + " could not be prepared for this server: " +
                         tree.error.value_or("the build failed") +
                         "; run the install again to retry");
  return tree;
}

// What the install script said: its result, or why it failed, in one sentence.
nlohmann::json installResult(const commands::Ran& ran, const std::string& password,
                             int64_t timeout_seconds) {
  const std::string output = withoutPassword(ran.output, password);
  const std::vector<std::string> said = lines(output);
  if (ran.timed_out)
    throw Error(504, "WordPress's install did not finish within " +
                         std::to_string(timeout_seconds) + " s and was stopped");
  nlohmann::json result;
  std::string reason;
  for (const std::string& line : said) {
    if (line.rfind(kResultPrefix, 0) == 0)
      result = nlohmann::json::parse(line.substr(kResultPrefix.size()), nullptr, false);
    // The first one says why; anything after it is a consequence.
    if (line.rfind("berth install: ", 0) == 0 && reason.empty()) reason = line.substr(15);
  }
  if (ran.exit_code == 0 && result.is_object()) return result;
  if (reason.empty()) {
    // Not the script's own words (PHP itself failed): its last lines.
    for (size_t i = said.size() > 3 ? said.size() - 3 : 0; i < said.size(); ++i)
      reason += (reason.empty() ? "" : " | ") + said[i];
    if (reason.empty()) reason = "it printed nothing";
  }
  const std::string how = ran.exit_code ? "exit code " + std::to_string(*ran.exit_code)
                                        : "signal " + std::to_string(ran.signal.value_or(0));
  throw Error(502, "WordPress could not be installed (" + how + "): " + clip(reason, 900) +
                       "; the project's logs have the details, and the install can be run again");
}

}  // namespace

berth::InstallerInfo WordpressInstaller::info() const {
  return {"wordpress",
          "WordPress",
          "Content management: a website or blog with its dashboard, on the project's PostgreSQL "
          "database and file storage.",
          "1.0.0",
          {std::string(trees::kService), std::string(secrets::kService),
           std::string(berth::runtime_apps::kService), std::string(directory::kService),
           std::string(releases::kService), std::string(commands::kService),
           std::string(schedules::kService), std::string(berth::templates_installs::kService)},
          {{"email", berth::FieldType::String, true},
           {"password", berth::FieldType::String, true},
           {"title", berth::FieldType::String, false},
           {"user", berth::FieldType::String, false}}};
}

nlohmann::json WordpressInstaller::install(berth::InstallContext& context,
                                           const nlohmann::json& body) {
  // Both refusals come before any service is called: a refused install changes nothing.
  const InstallBody asked = parseInstallBody(body);
  const Settings settings = this->settings();
  checkInstalledPackages(settings.dpkg_status, settings.package_version);

  const std::string upstream = upstreamVersion(settings.package_version);
  const std::filesystem::path payload = context.payloadDir();
  const std::string name =
      treeName(settings.package_version, payloadDigest(payload, settings.package_version));
  progress(context, "installing WordPress " + upstream + " (Debian's " + settings.package_version +
                        ") on PHP and the project's PostgreSQL");
  const trees::Tree tree = readyTree(context, payload.string(), name, upstream, settings, timing_);

  // Generated once: a second install keeps them, so signed-in visitors stay signed in.
  std::vector<std::string> secret_names;
  int generated = 0;
  for (std::string_view key : kKeyNames) {
    secrets::SetRequest set;
    set.name = kSecretPrefix + std::string(key);
    set.value = randomKey();
    set.only_if_absent = true;
    const secrets::Stored stored =
        secrets::parseStored(context.call(secrets::kService, secrets::kSet, secrets::toJson(set)));
    if (stored.stored) ++generated;
    secret_names.push_back(set.name);
  }

  // A PHP release needs none of the start options another app may have left (a readiness
  // path, shared folders, variables), and a start command would replace PHP's detection.
  context.call(berth::runtime_apps::kService, berth::runtime_apps::kSetStartOptions,
               berth::runtime_apps::toJson(berth::runtime_apps::StartOptions{}));
  const std::string old_cmd = context.project().value("cmd", "");
  if (!old_cmd.empty()) {
    progress(context, "clearing the project's start command (" + old_cmd +
                          "): WordPress runs as a PHP release");
    context.call(directory::kService, directory::kSetCmd,
                 directory::toJson(directory::SetCmdRequest{"", std::nullopt}));
  }

  progress(context, "making the WordPress release");
  releases::CreateRequest create;
  create.folder = tree.path + "/site";
  const releases::Release created = releases::parseRelease(
      context.call(releases::kService, releases::kCreate, releases::toJson(create)),
      releases::kCreate);
  const releases::WaitRequest wait{"", created.id, timing_.release_wait_seconds};
  const releases::Release release = releases::parseRelease(
      context.call(releases::kService, releases::kWait, releases::toJson(wait)), releases::kWait);
  if (release.status != releases::kLive && release.status != releases::kReady)
    throw Error(502, "the WordPress release " + release.id +
                         " did not become ready: " + release.error.value_or(release.status));

  progress(context, "setting up the site and its administrator " + asked.user);
  commands::RunRequest run;
  run.argv = {"php", kInstallScript};
  run.release_id = release.id;
  run.timeout_seconds = timing_.command_timeout_seconds;
  // On stdin only: never on a command line (other users' ps) or in a log.
  run.input = nlohmann::json{{"email", asked.email},
                             {"password", asked.password},
                             {"title", asked.title},
                             {"keep_title", !asked.title_given},
                             {"user", asked.user}}
                  .dump();
  const nlohmann::json result = installResult(
      commands::parseRan(context.call(commands::kService, commands::kRun, commands::toJson(run))),
      asked.password, timing_.command_timeout_seconds);

  schedules::EnsureRequest cron;
  cron.name = kCronSchedule;
  cron.spec = kCronSpec;
  cron.path = kCronPath;
  const schedules::Ensured ensured = schedules::parseEnsured(
      context.call(schedules::kService, schedules::kEnsure, schedules::toJson(cron)));

  const std::string url = context.project().value("url", "");
  return {{"schedules", nlohmann::json::array({schedules::toJson(ensured.schedule)})},
          {"secrets", secret_names},
          {"keys_generated", generated},
          {"release", {{"id", release.id}, {"status", release.status}}},
          {"wordpress",
           {{"version", upstream}, {"package", settings.package_version}, {"tree", tree.path}}},
          {"site",
           {{"url", url},
            {"installed", result.value("installed", false)},
            {"title", result.value("title", asked.title)}}},
          {"admin",
           {{"user", asked.user},
            {"email", asked.email},
            {"created", result.value("user_created", false)}}},
          {"next", "open " + url + "/wp-admin/ and sign in as " + asked.user}};
}

}  // namespace berth::wordpress
