// TXT look-ups for domain verification, through a configurable resolver (host:port) so tests
// can run dnsmasq on loopback.
#pragma once
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace berth::projects {

class DnsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// resolver: "127.0.0.1:5353", "[::1]:53", "10.0.0.2" (port 53), or "" for the system's
// (/etc/resolv.conf). Returns every TXT string of name (each record's character-strings
// joined); an empty vector when the name has no TXT record (NXDOMAIN or no data).
// Throws DnsError with a readable reason when the resolver does not answer or answers garbage.
std::vector<std::string> lookupTxt(const std::string& name, const std::string& resolver,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace berth::projects
