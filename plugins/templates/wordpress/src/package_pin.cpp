#include "package_pin.hpp"

#include <berth/error.hpp>
#include <berth/util/payload_files.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace berth::wordpress {

namespace {

namespace fs = std::filesystem;
using berth::Error;

}  // namespace

std::string upstreamVersion(const std::string& package_version) {
  std::string_view v(package_version);
  if (const size_t colon = v.find(':'); colon != std::string_view::npos) v.remove_prefix(colon + 1);
  const size_t end = v.find_first_of("+-~");
  v = v.substr(0, end);
  if (v.empty() || v.size() > 20 || !std::isdigit(static_cast<unsigned char>(v.front())) ||
      v.back() == '.')
    return "";
  for (char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return "";
  return std::string(v);
}

std::optional<std::string> installedVersion(const fs::path& status_file, std::string_view package) {
  std::ifstream in(status_file);
  if (!in) return std::nullopt;
  // Stanzas separated by blank lines; the fields that matter are on lines of their own.
  std::string line, name, status, version;
  auto stanzaEnds = [&]() -> std::optional<std::string> {
    std::optional<std::string> found;
    if (name == package && status == "install ok installed" && !version.empty()) found = version;
    name.clear();
    status.clear();
    version.clear();
    return found;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (auto found = stanzaEnds()) return found;
      continue;
    }
    if (line.rfind("Package: ", 0) == 0) name = line.substr(9);
    if (line.rfind("Status: ", 0) == 0) status = line.substr(8);
    if (line.rfind("Version: ", 0) == 0) version = line.substr(9);
  }
  return stanzaEnds();
}

void checkInstalledPackages(const fs::path& status_file, const std::string& package_version) {
  if (upstreamVersion(package_version).empty())
    throw Error(500, "wordpress.package_version is \"" + package_version +
                         "\", which is not a Debian version of WordPress such as " +
                         kPinnedPackageVersion);
  for (std::string_view package : kPackages) {
    const std::optional<std::string> found = installedVersion(status_file, package);
    if (found == package_version) continue;
    const std::string what =
        found ? "Debian's " + std::string(package) + " " + *found + " is installed on this server"
              : "Debian's " + std::string(package) + " package is not installed on this server";
    throw Error(501, "WordPress cannot be installed: " + what + ", but the pinned version " +
                         "(wordpress.package_version in berth.yaml) is " + package_version +
                         "; install that version (apt-get install " + std::string(package) + "=" +
                         package_version + ") or change the pin");
  }
}

std::string payloadDigest(const fs::path& payload_dir, const std::string& package_version) {
  std::vector<std::pair<std::string, fs::path>> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(payload_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec))
      files.emplace_back(it->path().lexically_relative(payload_dir).generic_string(), it->path());
  }
  if (ec || files.empty())
    throw Error(500, "the WordPress payload at " + payload_dir.string() + " cannot be read");
  std::sort(files.begin(), files.end());
  std::string hashed = package_version;
  hashed.push_back('\0');
  for (const auto& [name, path] : files) {
    const std::string bytes = berth::payload::readFile(path, "WordPress");
    hashed.append(name).push_back('\0');
    hashed.append(std::to_string(bytes.size())).push_back('\0');
    hashed.append(bytes);
  }
  return berth::payload::sha256Hex(hashed).substr(0, 12);
}

std::string treeName(const std::string& package_version, const std::string& digest) {
  return "wordpress-" + upstreamVersion(package_version) + "-" + digest;
}

}  // namespace berth::wordpress
