#include "http/host_routing.hpp"
#include "util/ascii.hpp"

#include <algorithm>
#include <cctype>

namespace berth::core {

HostRouting::HostRouting(std::string apps_domain)
    : apps_domain_(normalise(apps_domain)), custom_(std::make_shared<std::set<std::string>>()) {}

std::string HostRouting::normalise(const std::string& host_header) {
  std::string host = host_header;
  if (!host.empty() && host[0] == '[') {
    auto close = host.find(']');
    host = close == std::string::npos ? host : host.substr(0, close + 1);
  } else {
    auto colon = host.find(':');
    if (colon != std::string::npos) host = host.substr(0, colon);
  }
  while (!host.empty() && host.back() == '.') host.pop_back();
  return asciiLower(std::move(host));
}

bool HostRouting::isProjectHost(const std::string& host) const {
  std::string suffix = "." + apps_domain_;
  if (host.size() > suffix.size() &&
      host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0) {
    std::string label = host.substr(0, host.size() - suffix.size());
    // One DNS label (RFC 1123): at most 63 characters, no hyphen at either end.
    if (label == "api" || label.empty() || label.size() > 63 || label.front() == '-' ||
        label.back() == '-')
      return false;
    return std::all_of(label.begin(), label.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
  }
  std::shared_ptr<const std::set<std::string>> custom;
  {
    std::lock_guard lock(mutex_);
    custom = custom_;
  }
  return custom->count(host) > 0;
}

void HostRouting::setCustomHosts(const std::vector<std::string>& hosts) {
  auto next = std::make_shared<std::set<std::string>>();
  for (const auto& h : hosts) next->insert(normalise(h));
  std::lock_guard lock(mutex_);
  custom_ = std::move(next);
}

std::vector<std::string> HostRouting::customHosts() const {
  std::lock_guard lock(mutex_);
  return {custom_->begin(), custom_->end()};
}

}  // namespace berth::core
