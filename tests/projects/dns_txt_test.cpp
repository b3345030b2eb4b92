#include "dns_txt.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/berthd_process.hpp"
#include "util/process.hpp"

using berth::projects::DnsError;
using berth::projects::lookupTxt;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const std::string kLong = [] {
  std::string s;
  for (int i = 0; i < 300; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}();

// A UDP socket on 127.0.0.1; kept open it is a resolver that never answers, closed it leaves
// a port that is (most likely) free for dnsmasq or empty for a "nothing listens" test.
class UdpSocket {
 public:
  UdpSocket() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("cannot open a UDP socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot bind a UDP socket on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
  }
  ~UdpSocket() { ::close(fd_); }
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  uint16_t port() const { return port_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

uint16_t freeUdpPort() {
  return UdpSocket().port();
}

// A resolver that answers every query with reply(query): for answers dnsmasq will not send.
class FakeResolver {
 public:
  explicit FakeResolver(std::function<std::string(const std::string&)> reply)
      : reply_(std::move(reply)), thread_([this] { serve(); }) {}
  ~FakeResolver() {
    stop_ = true;
    thread_.join();
  }
  FakeResolver(const FakeResolver&) = delete;
  FakeResolver& operator=(const FakeResolver&) = delete;
  std::string address() const { return "127.0.0.1:" + std::to_string(socket_.port()); }

 private:
  void serve() {
    while (!stop_) {
      pollfd pfd{socket_.fd(), POLLIN, 0};
      if (::poll(&pfd, 1, 50) <= 0) continue;
      char buffer[4096];
      sockaddr_in from{};
      socklen_t from_len = sizeof from;
      ssize_t n = ::recvfrom(socket_.fd(), buffer, sizeof buffer, 0,
                             reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n < 12) continue;
      std::string answer = reply_(std::string(buffer, size_t(n)));
      ::sendto(socket_.fd(), answer.data(), answer.size(), 0, reinterpret_cast<sockaddr*>(&from),
               from_len);
    }
  }

  UdpSocket socket_;
  std::function<std::string(const std::string&)> reply_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The query's id and question with a response header claiming `answers` records, followed by
// `records` (raw resource records, owner names as pointers to the question).
std::string responseTo(const std::string& query, int answers, const std::string& records) {
  size_t end = 12;
  while (end < query.size() && query[end] != 0) end += 1 + static_cast<unsigned char>(query[end]);
  end += 1 + 4;  // root label, type, class
  std::string out = query.substr(0, 2);
  out += std::string("\x81\x80\x00\x01\x00", 5) + static_cast<char>(answers);
  out += std::string(4, '\0');
  out += query.substr(12, end - 12);
  return out + records;
}

// A TXT record for the question's name with rdata as given.
std::string txtRr(const std::string& rdata) {
  std::string rr("\xc0\x0c\x00\x10\x00\x01\x00\x00\x00\x3c", 10);
  rr += static_cast<char>(rdata.size() >> 8);
  rr += static_cast<char>(rdata.size() & 0xff);
  return rr + rdata;
}

using berth::testing::readFile;

// dnsmasq on loopback with a few TXT records. --local makes it authoritative for
// example.test, so unknown names there get NXDOMAIN; names elsewhere get REFUSED (no upstream).
class Dnsmasq {
 public:
  Dnsmasq() {
    char pattern[] = "/tmp/berth-dns-test.XXXXXX";
    if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    // Another process may take the port between our probe and dnsmasq's bind; try again.
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = freeUdpPort();
      child_ = start();
      if (waitUntilAnswering()) return;
      child_ = berth::core::Child();  // kills it when still running
    }
    throw std::runtime_error("dnsmasq did not start: " + readFile(dir_ + "/dnsmasq.log"));
  }
  ~Dnsmasq() {
    if (child_.pid() > 0) child_.stop(2s);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Dnsmasq(const Dnsmasq&) = delete;
  Dnsmasq& operator=(const Dnsmasq&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  bool running() { return child_.running(); }

 private:
  berth::core::Child start() {
    berth::core::SpawnOptions options;
    options.output_file = dir_ + "/dnsmasq.log";
    return berth::core::spawn(
        {"/usr/sbin/dnsmasq", "--keep-in-foreground", "--port=" + std::to_string(port_),
         "--listen-address=127.0.0.1", "--bind-interfaces", "--no-resolv", "--no-hosts",
         "--conf-file=/dev/null", "--pid-file=" + dir_ + "/dnsmasq.pid",
         // Stay root: the test owns the process and its temporary files.
         "--user=root", "--log-facility=-", "--local=/example.test/",
         "--txt-record=_berth.www.example.test,berth-verify=abc123",
         "--txt-record=multi.example.test,part one,part two",
         "--txt-record=two.example.test,first record", "--txt-record=two.example.test,second",
         "--txt-record=long.example.test," + kLong, "--host-record=nodata.example.test,127.0.0.9",
         "--cname=alias.example.test,nodata.example.test",
         "--cname=alias2.example.test,_berth.www.example.test"},
        options);
  }

  bool waitUntilAnswering() {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!child_.running()) return false;
      try {
        if (!lookupTxt("_berth.www.example.test", address(), 1s).empty()) return true;
      } catch (const DnsError&) {
        // not listening yet
      }
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  std::string dir_;
  uint16_t port_ = 0;
  berth::core::Child child_;
};

class DnsTxt : public testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = std::make_unique<Dnsmasq>(); }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_ && server_->running()); }
  static std::string resolver() { return server_->address(); }

  static std::unique_ptr<Dnsmasq> server_;
};

std::unique_ptr<Dnsmasq> DnsTxt::server_;

std::string errorOf(const std::string& name, const std::string& resolver,
                    std::chrono::milliseconds timeout = 1s) {
  try {
    auto records = lookupTxt(name, resolver, timeout);
    return "no error, " + std::to_string(records.size()) + " records";
  } catch (const DnsError& e) {
    return e.what();
  }
}

}  // namespace

TEST_F(DnsTxt, FindsAPresentRecord) {
  EXPECT_EQ(lookupTxt("_berth.www.example.test", resolver()),
            std::vector<std::string>{"berth-verify=abc123"});
  // Names are case-insensitive in DNS.
  EXPECT_EQ(lookupTxt("_BERTH.WWW.Example.Test", resolver()),
            std::vector<std::string>{"berth-verify=abc123"});
}

TEST_F(DnsTxt, UnknownNameGivesNoRecords) {
  EXPECT_TRUE(lookupTxt("_berth.nothing-here.example.test", resolver()).empty());
}

TEST_F(DnsTxt, NameWithoutTxtRecordsGivesNoRecords) {
  EXPECT_TRUE(lookupTxt("nodata.example.test", resolver()).empty());
}

TEST_F(DnsTxt, CnameInTheAnswerIsNotATxtRecord) {
  // The answer holds the CNAME alone (its target has no TXT record); it must not be read as one.
  EXPECT_TRUE(lookupTxt("alias.example.test", resolver()).empty());
  // CNAME then TXT: only the TXT record counts.
  EXPECT_EQ(lookupTxt("alias2.example.test", resolver()),
            std::vector<std::string>{"berth-verify=abc123"});
}

TEST_F(DnsTxt, StringsOfOneRecordAreJoined) {
  EXPECT_EQ(lookupTxt("multi.example.test", resolver()),
            std::vector<std::string>{"part onepart two"});
}

TEST_F(DnsTxt, EveryRecordIsReturned) {
  auto records = lookupTxt("two.example.test", resolver());
  std::sort(records.begin(), records.end());
  EXPECT_EQ(records, (std::vector<std::string>{"first record", "second"}));
}

TEST_F(DnsTxt, RecordLongerThan255BytesIsJoinedBack) {
  auto records = lookupTxt("long.example.test", resolver());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].size(), kLong.size());
  EXPECT_EQ(records[0], kLong);
}

TEST_F(DnsTxt, RefusedNameIsAnError) {
  // Outside example.test dnsmasq has no upstream and refuses: that is no answer, not "no record".
  std::string error = errorOf("_berth.www.elsewhere.test", resolver());
  EXPECT_EQ(error,
            "the DNS resolver " + resolver() + " did not answer for _berth.www.elsewhere.test");
}

TEST_F(DnsTxt, ConcurrentLookupsDoNotInterfere) {
  std::vector<std::thread> threads;
  std::vector<int> good(8, 0);
  for (size_t t = 0; t < good.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        try {
          bool long_one = (t + i) % 2 == 0;
          auto records =
              lookupTxt(long_one ? "long.example.test" : "multi.example.test", resolver(), 5s);
          if (records == std::vector<std::string>{long_one ? kLong : "part onepart two"}) ++good[t];
        } catch (const DnsError&) {
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (size_t t = 0; t < good.size(); ++t) EXPECT_EQ(good[t], 20) << "thread " << t;
}

TEST(DnsTxtErrors, NothingListeningIsAnError) {
  std::string resolver = "127.0.0.1:" + std::to_string(freeUdpPort());
  EXPECT_EQ(errorOf("_berth.www.example.test", resolver),
            "the DNS resolver " + resolver + " did not answer for _berth.www.example.test");
}

TEST(DnsTxtErrors, SilentResolverTimesOut) {
  UdpSocket silent;  // receives the query and never answers
  std::string resolver = "127.0.0.1:" + std::to_string(silent.port());
  EXPECT_EQ(errorOf("_berth.www.example.test", resolver),
            "the DNS resolver " + resolver + " did not answer for _berth.www.example.test");
}

TEST(DnsTxtErrors, MalformedResolverIsAnError) {
  for (const std::string bad : {"not a resolver", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                                "127.0.0.1:53x", "127.0.0.1:-1", "127.0.0.1:+53", "127.0.0.256",
                                "localhost:53", "[::1", "[nonsense]:53", ":53", "127.0.0.1 :53"}) {
    std::string error = errorOf("_berth.www.example.test", bad);
    EXPECT_EQ(error.rfind("the DNS resolver \"" + bad + "\" is not usable: ", 0), 0u)
        << bad << " -> " << error;
  }
}

TEST(DnsTxtErrors, Ipv6ResolversAreRefusedClearly) {
  for (const std::string v6 : {"[::1]:53", "[::1]:5353", "::1"}) {
    EXPECT_EQ(errorOf("_berth.www.example.test", v6),
              "IPv6 resolvers are not supported (\"" + v6 + "\")");
  }
}

TEST(DnsTxtErrors, InvalidNamesAreErrors) {
  // Checked before any query is sent, so no server is needed.
  std::string resolver = "127.0.0.1:" + std::to_string(freeUdpPort());
  EXPECT_EQ(errorOf("", resolver), "\"\" is not a DNS name");
  EXPECT_EQ(errorOf(std::string(254, 'a'), resolver),
            "\"" + std::string(254, 'a') + "\" is not a DNS name");
}

TEST(DnsTxtErrors, FakeResolverIsUnderstood) {
  // Proves the fake's answers are read at all, so the malformed cases below mean something.
  FakeResolver fake([](const std::string& query) {
    return responseTo(query, 2,
                      txtRr(std::string("\x02ok\x03, b", 7)) + txtRr(std::string(1, '\0')));
  });
  EXPECT_EQ(lookupTxt("fake.example.test", fake.address(), 2s),
            (std::vector<std::string>{"ok, b", ""}));
}

TEST(DnsTxtErrors, MalformedTxtRecordIsAnError) {
  FakeResolver fake([](const std::string& query) {
    return responseTo(query, 1, txtRr({'\x05', 'a', 'b'}));  // says 5 bytes, has 2
  });
  EXPECT_EQ(
      errorOf("fake.example.test", fake.address(), 2s),
      "the DNS resolver " + fake.address() + " sent a malformed TXT record for fake.example.test");
}

TEST(DnsTxtErrors, TruncatedAnswerIsAnError) {
  FakeResolver fake([](const std::string& query) {
    return responseTo(query, 2, txtRr(std::string("\x02ok", 3)));  // claims two, has one
  });
  EXPECT_EQ(
      errorOf("fake.example.test", fake.address(), 2s),
      "the DNS resolver " + fake.address() + " sent a malformed answer for fake.example.test");
}
