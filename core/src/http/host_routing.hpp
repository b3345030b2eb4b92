// Which side of berthd a request is for: the management API or a project's own traffic.
#pragma once
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace berth::core {

class HostRouting {
 public:
  explicit HostRouting(std::string apps_domain);

  // Host as sent ("Foo-Abcd.localhost:8080", "[::1]:80") -> lower-case host without port.
  static std::string normalise(const std::string& host_header);

  // <one label>.<apps_domain> (other than api.<apps_domain>; a DNS label: 1-63 letters, digits
  // and hyphens, no hyphen at either end) or a custom host: project traffic.
  // Everything else (an IP address, apps_domain itself, api.<apps_domain>) is the API.
  bool isProjectHost(const std::string& normalised_host) const;

  void setCustomHosts(const std::vector<std::string>& hosts);
  std::vector<std::string> customHosts() const;

 private:
  std::string apps_domain_;
  mutable std::mutex mutex_;
  std::shared_ptr<const std::set<std::string>> custom_;
};

}  // namespace berth::core
