// The WordPress installer. An install, through its context only (README.md beside src/ says
// why each step and setting is what it is):
//   0. checks the body (400) and that Debian's packages are the pinned version (501), before
//      any service is called;
//   1. builds the WordPress tree for this version and payload once per server
//      (runtime.shared_trees.v1), waiting for it and telling how far it is
//      (templates.installs.v1);
//   2. generates the eight keys and salts once (projects.secrets.v1, only if absent);
//   3. clears start options and a start command left by another app (runtime.apps.v1,
//      projects.directory.v1), so the release runs as a PHP release;
//   4. makes a release of the tree's site and waits until it is live (runtime.releases.v1);
//   5. runs .berth/install.php in that release as the app (runtime.commands.v1), the
//      administrator's password on its stdin: wp_install() on a new site, the administrator
//      made or reset on an installed one, whose content is kept;
//   6. ensures the schedule that requests /wp-cron.php every 15 minutes
//      (scheduler.schedules.v1).
#pragma once
#include <berth/installer.hpp>

#include <array>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "package_pin.hpp"

namespace berth::wordpress {

// WordPress's keys and salts, each a runtime secret WORDPRESS_<name> that wp-config.php reads.
inline constexpr std::array<std::string_view, 8> kKeyNames = {
    "AUTH_KEY",  "SECURE_AUTH_KEY",  "LOGGED_IN_KEY",  "NONCE_KEY",
    "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"};
inline constexpr const char* kSecretPrefix = "WORDPRESS_";

// WordPress's own cron never runs on a page view (DISABLE_WP_CRON): this schedule does.
inline constexpr const char* kCronSchedule = "wordpress-cron";
inline constexpr const char* kCronSpec = "*/15 * * * *";
inline constexpr const char* kCronPath = "/wp-cron.php";

// The one-off install, run in the release (a hidden folder: never served, never run by a URL).
inline constexpr const char* kInstallScript = ".berth/install.php";
// The line the script ends with when it succeeded: this prefix and a JSON object.
inline constexpr std::string_view kResultPrefix = "berth-install-result: ";

class WordpressInstaller final : public berth::Installer {
 public:
  struct Timing {
    std::chrono::milliseconds poll{1000};      // asks how the tree's build goes
    std::chrono::seconds progress_every{10};   // tells the caller how it goes
    std::chrono::seconds tree_deadline{1800};  // gives up waiting for the tree
    int64_t release_wait_seconds = 600;        // runtime.releases.v1 wait
    int64_t command_timeout_seconds = 300;     // the one-off install
  };
  struct Settings {
    std::string package_version = kPinnedPackageVersion;  // wordpress.package_version
    std::filesystem::path dpkg_status = kDpkgStatus;
    std::string wordpress_dir = "/usr/share/wordpress";  // Debian's; where build.sh copies from
  };

  WordpressInstaller() = default;
  WordpressInstaller(Settings settings, Timing timing)
      : settings_(std::move(settings)), timing_(timing) {}

  // From the plugin's start(), before any install runs.
  void setPackageVersion(std::string version) {
    std::lock_guard lock(mutex_);
    settings_.package_version = std::move(version);
  }

  berth::InstallerInfo info() const override;
  nlohmann::json install(berth::InstallContext& context, const nlohmann::json& body) override;

 private:
  Settings settings() const {
    std::lock_guard lock(mutex_);
    return settings_;
  }

  mutable std::mutex mutex_;
  Settings settings_;
  Timing timing_;
};

}  // namespace berth::wordpress
