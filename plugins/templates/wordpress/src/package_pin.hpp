// Which WordPress an install uses, and the shared tree built from it. WordPress comes from
// Debian's packages `wordpress` and `wordpress-theme-twentytwentythree` (one source package,
// one version), pinned by the configuration key wordpress.package_version (default
// kPinnedPackageVersion): an install refuses while the installed packages are another
// version, so a project never gets a WordPress nobody chose. The tree's name carries the
// upstream version and a digest of the pin and of every payload file, so a new pin or a changed
// payload (the drop-in, wp-config.php, the must-use plugin) builds a new tree beside the old.
#pragma once
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace berth::wordpress {

// Debian 12's WordPress (the version `dpkg-query -W wordpress` shows).
inline constexpr const char* kPinnedPackageVersion = "6.1.9+dfsg1-0+deb12u1";
// Both must be installed at the pinned version: the theme is WordPress's default one.
inline constexpr std::array<std::string_view, 2> kPackages = {"wordpress",
                                                              "wordpress-theme-twentytwentythree"};
// What dpkg-query reads: the package database.
inline constexpr const char* kDpkgStatus = "/var/lib/dpkg/status";

// "6.1.9" of "6.1.9+dfsg1-0+deb12u1" (an epoch "1:" dropped too); empty when the version does
// not start with digits and dots.
std::string upstreamVersion(const std::string& package_version);

// The version of an installed package ("install ok installed") in a dpkg status file, as
// `dpkg-query -W <package>` shows it; std::nullopt when it is not installed or the file cannot
// be read.
std::optional<std::string> installedVersion(const std::filesystem::path& status_file,
                                            std::string_view package);

// @throw berth::Error 501 naming the package, the version found and the pin, when a package of
// kPackages is missing or of another version; 500 when the pin itself is not a WordPress version.
void checkInstalledPackages(const std::filesystem::path& status_file,
                            const std::string& package_version);

// The first 12 hex digits of SHA-256 over the pin and every file of the payload (its path, size
// and bytes, in path order). @throw berth::Error 500 when the payload cannot be read.
std::string payloadDigest(const std::filesystem::path& payload_dir,
                          const std::string& package_version);

// "wordpress-6.1.9-1a2b3c4d5e6f": a runtime.shared_trees.v1 name.
std::string treeName(const std::string& package_version, const std::string& digest);

}  // namespace berth::wordpress
