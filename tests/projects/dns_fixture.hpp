// Custom-domain verification in tests: a dnsmasq on loopback that answers TXT records for one
// zone (berthd's projects.dns_resolver points at it), and the token of an added domain.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "api_support.hpp"
#include "util/process.hpp"

namespace berth::testing::projects_api {

// The token of an added domain: its TXT record's value after "berth-verify=".
inline std::string tokenOf(const nlohmann::json& domain) {
  for (const auto& record : domain.at("records"))
    if (record.value("type", "") == "TXT") {
      std::string value = record.value("value", "");
      if (value.rfind("berth-verify=", 0) == 0) return value.substr(13);
    }
  return "";
}

// dnsmasq on 127.0.0.1:port answering for `zone` alone (NXDOMAIN for names it has no record
// of) with the given TXT records. Killed when the Child goes.
inline berth::core::Child startDnsmasq(uint16_t port, const std::string& zone,
                                       const std::vector<std::pair<std::string, std::string>>& txt,
                                       const std::string& log_file) {
  std::string binary =
      std::filesystem::exists("/usr/sbin/dnsmasq") ? "/usr/sbin/dnsmasq" : "dnsmasq";
  std::vector<std::string> argv = {binary,
                                   "--keep-in-foreground",
                                   "--port=" + std::to_string(port),
                                   "--listen-address=127.0.0.1",
                                   "--bind-interfaces",
                                   "--no-resolv",
                                   "--no-hosts",
                                   "--conf-file=/dev/null",
                                   "--log-facility=-",
                                   "--local=/" + zone + "/"};
  if (geteuid() == 0) argv.push_back("--user=root");
  // Passed without a shell, so no quotes: dnsmasq would keep them in the record.
  for (const auto& [name, value] : txt) argv.push_back("--txt-record=" + name + "," + value);
  berth::core::SpawnOptions options;
  options.output_file = log_file;
  auto child = berth::core::spawn(argv, options);
  bool started = eventually([&] { return readFile(log_file).find("started") != std::string::npos; },
                            std::chrono::seconds(20));
  if (!started || !child.running())
    throw std::runtime_error("dnsmasq did not start:\n" + readFile(log_file));
  return child;
}

}  // namespace berth::testing::projects_api
