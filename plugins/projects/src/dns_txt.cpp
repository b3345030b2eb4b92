#include "dns_txt.hpp"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace berth::projects {
namespace {

// resolv.h also declares a function named __res_state, so the struct needs its tag.
using ResState = struct __res_state;

struct Resolver {
  in_addr address{};
  uint16_t port = 53;
};

DnsError badResolver(const std::string& resolver, const std::string& why) {
  return DnsError("the DNS resolver \"" + resolver + "\" is not usable: " + why);
}

DnsError noIpv6(const std::string& resolver) {
  // glibc takes IPv6 servers only from resolv.conf; nsaddr_list holds IPv4 alone.
  return DnsError("IPv6 resolvers are not supported (\"" + resolver + "\")");
}

// Only literal addresses: looking up the resolver's own name would need a resolver, so a
// hostname here would quietly depend on the system's one.
Resolver parseResolver(const std::string& text) {
  std::string host = text;
  std::optional<std::string> port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    in6_addr v6{};
    if (close != std::string::npos &&
        inet_pton(AF_INET6, text.substr(1, close - 1).c_str(), &v6) == 1)
      throw noIpv6(text);
    throw badResolver(text, "expected [IPv6 address]:port");
  }
  if (auto colon = text.find(':'); colon != std::string::npos) {
    in6_addr v6{};
    if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) throw noIpv6(text);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  Resolver out;
  if (inet_pton(AF_INET, host.c_str(), &out.address) != 1)
    throw badResolver(text, "expected an IPv4 address, optionally followed by :port");
  if (port) {
    unsigned value = 0;
    const char* first = port->data();
    const char* last = first + port->size();
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || end != last || first == last || value == 0 || value > 65535)
      throw badResolver(text, "the port must be a number from 1 to 65535");
    out.port = static_cast<uint16_t>(value);
  }
  return out;
}

// A private resolver state per call: res_nquery on it needs no lock, unlike the global _res.
class ResolverState {
 public:
  ResolverState() {
    if (res_ninit(&state_) != 0) throw DnsError("the DNS resolver could not be initialised");
  }
  ~ResolverState() { res_nclose(&state_); }
  ResolverState(const ResolverState&) = delete;
  ResolverState& operator=(const ResolverState&) = delete;
  ResState* get() { return &state_; }

 private:
  ResState state_{};
};

void applyTimeout(ResState& state, std::chrono::milliseconds timeout) {
  // libresolv counts whole seconds; each try waits retrans, so retry * retrans bounds the
  // wait for one server. Two tries when the budget allows, to survive one lost datagram.
  long long total = std::max<long long>(1, (timeout.count() + 999) / 1000);
  if (total >= 2) {
    state.retry = 2;
    state.retrans = static_cast<int>(std::min<long long>(total / 2, 3600));
  } else {
    state.retry = 1;
    state.retrans = 1;
  }
}

bool plausibleName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  return std::none_of(name.begin(), name.end(), [](char c) { return c == '\0'; });
}

// TXT RDATA is one or more <length><bytes> character-strings; a record is their
// concatenation (how SPF and verification tokens longer than 255 bytes are carried).
std::string txtRecord(const ns_rr& rr, const std::string& who, const std::string& name) {
  const unsigned char* p = ns_rr_rdata(rr);
  const unsigned char* end = p + ns_rr_rdlen(rr);
  std::string text;
  while (p < end) {
    size_t len = *p++;
    if (len > size_t(end - p)) throw DnsError(who + " sent a malformed TXT record for " + name);
    text.append(reinterpret_cast<const char*>(p), len);
    p += len;
  }
  return text;
}

}  // namespace

std::vector<std::string> lookupTxt(const std::string& name, const std::string& resolver,
                                   std::chrono::milliseconds timeout) {
  std::optional<Resolver> server;
  if (!resolver.empty()) server = parseResolver(resolver);
  if (!plausibleName(name)) throw DnsError("\"" + name + "\" is not a DNS name");
  std::string who = resolver.empty() ? "the system's DNS resolver" : "the DNS resolver " + resolver;

  ResolverState holder;
  ResState& state = *holder.get();
  if (server) {
    state.nscount = 1;
    state.nsaddr_list[0] = sockaddr_in{};
    state.nsaddr_list[0].sin_family = AF_INET;
    state.nsaddr_list[0].sin_port = htons(server->port);
    state.nsaddr_list[0].sin_addr = server->address;
  }
  applyTimeout(state, timeout);
  // UDP first (TCP only when an answer is truncated), whatever resolv.conf asks for.
  state.options &= ~static_cast<decltype(state.options)>(RES_USEVC);

  // 64 KiB holds any DNS message, so the reply is never cut short by our buffer.
  std::vector<unsigned char> answer(65536);
  int n = res_nquery(&state, name.c_str(), ns_c_in, ns_t_txt, answer.data(),
                     static_cast<int>(answer.size()));
  if (n < 0) {
    switch (state.res_h_errno) {
      case HOST_NOT_FOUND:  // NXDOMAIN
      case NO_DATA:         // the name exists without TXT records
        return {};
      default:
        throw DnsError(who + " did not answer for " + name);
    }
  }
  if (static_cast<size_t>(n) > answer.size())
    throw DnsError(who + " sent an answer too large to read for " + name);

  ns_msg msg;
  if (ns_initparse(answer.data(), n, &msg) != 0)
    throw DnsError(who + " sent a malformed answer for " + name);
  std::vector<std::string> records;
  int count = ns_msg_count(msg, ns_s_an);
  for (int i = 0; i < count; ++i) {
    ns_rr rr;
    if (ns_parserr(&msg, ns_s_an, i, &rr) != 0)
      throw DnsError(who + " sent a malformed answer for " + name);
    // CNAMEs on the way to the name, and anything else, are not ours to read.
    if (ns_rr_type(rr) != ns_t_txt || ns_rr_class(rr) != ns_c_in) continue;
    records.push_back(txtRecord(rr, who, name));
  }
  return records;
}

}  // namespace berth::projects
