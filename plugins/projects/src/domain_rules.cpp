#include "domain_rules.hpp"

#include <algorithm>

namespace berth::projects {
namespace {

constexpr std::size_t kMaxLabel = 63;
constexpr std::size_t kMaxName = 253;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || isDigit(c) || c == '-';
}

bool isLabel(std::string_view label) {
  return !label.empty() && label.size() <= kMaxLabel && label.front() != '-' &&
         label.back() != '-' && std::all_of(label.begin(), label.end(), isLabelChar);
}

// Non-ASCII, ports, paths and wildcards all fail the per-label character check; an IPv4
// address fails on its all-digit last label.
bool isDomainName(std::string_view host) {
  if (host.empty() || host.size() > kMaxName) return false;
  std::size_t labels = 0;
  std::string_view last;
  for (std::size_t start = 0;;) {
    const auto dot = host.find('.', start);
    const auto label = host.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!isLabel(label)) return false;
    ++labels;
    last = label;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return labels >= 2 && !std::all_of(last.begin(), last.end(), isDigit);
}

}  // namespace

std::string normaliseHost(std::string_view host) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!host.empty() && blank(host.front())) host.remove_prefix(1);
  while (!host.empty() && blank(host.back())) host.remove_suffix(1);
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string out(host);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::optional<std::string> hostProblem(std::string_view normalised_host,
                                       std::string_view apps_domain) {
  const std::string host(normalised_host);
  if (host.empty()) return "an empty host is not a domain name";
  if (!isDomainName(host)) return host + " is not a domain name";

  // The platform already answers for every name under its own domain, so a project claiming
  // one would take over another project's (or the API's) traffic.
  const std::string apps = normaliseHost(apps_domain);
  if (!apps.empty() && (host == apps || host.ends_with("." + apps)))
    return host + " is under " + apps + ", which the platform serves itself";
  return std::nullopt;
}

}  // namespace berth::projects
