// ctest-label: api (starts a real berthd)
// The nginx edge in front of berthd, over real sockets: body limits per route at the limit and
// one byte over, spooled raw bodies, chunked bodies, a client pushing past a limit, X-Accel file
// and proxy answers, and nginx coming back after it is killed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "auth/accounts.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"
#include "support/loopback_socket.hpp"

using namespace berth::testing;

namespace {

class ApiEdge : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "edgecheck"};
    startServer(options);
    token = server->createAccountWithToken("edge@example.com");
  }
  static void TearDownTestSuite() { dropServer(); }
  static std::string token;
};
std::string ApiEdge::token;

std::string bodyOf(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 7) % 256);
  return s;
}

int connectTo(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

bool sendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string readResponse(int fd) {
  std::string out;
  char buf[8192];
  while (true) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    auto end = out.find("\r\n\r\n");
    if (end != std::string::npos) {
      if (out.find("chunked") < end && out.size() >= 5 &&
          out.compare(out.size() - 5, 5, "0\r\n\r\n") == 0)
        break;
      auto cl = out.find("Content-Length: ");
      if (cl == std::string::npos) cl = out.find("content-length: ");
      if (cl != std::string::npos && cl < end) {
        size_t len = std::stoul(out.substr(cl + 16));
        if (out.size() >= end + 4 + len) break;
      }
    }
  }
  return out;
}

}  // namespace

TEST_F(ApiEdge, JsonBodyLimitAtTheLimitAndOneByteOver) {
  const size_t limit = 2 * 1024 * 1024;
  std::string padding(limit - std::string(R"({"pad":""})").size(), 'a');
  std::string at_limit = R"({"pad":")" + padding + R"("})";
  ASSERT_EQ(at_limit.size(), limit);
  auto r = server->api(token).raw("POST", "/edgecheck/json", at_limit,
                                  {"Content-Type: application/json"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["bytes"].get<size_t>(), limit);
  std::string over = R"({"pad":")" + padding + R"(a"})";
  r = server->api(token).raw("POST", "/edgecheck/json", over, {"Content-Type: application/json"});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_NE(r.json().value("error", "").find("too large"), std::string::npos) << r.body;
}

TEST_F(ApiEdge, RawBodiesAreSpooledToAFileUpToTheRouteLimit) {
  const size_t limit = 64ull * 1024 * 1024;
  std::string body = bodyOf(limit);
  auto r = server->api(token).raw("POST", "/edgecheck/raw64", body,
                                  {"Content-Type: application/octet-stream"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["bytes"].get<size_t>(), limit);
  EXPECT_TRUE(r.json()["spooled"].get<bool>()) << "the body went through berthd's memory";
  EXPECT_EQ(r.json()["sha256"], berth::core::sha256Hex(body));
  body.push_back('x');
  r = server->api(token).raw("POST", "/edgecheck/raw64", body,
                             {"Content-Type: application/octet-stream"});
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.json().value("error", "").find("64 MB"), std::string::npos) << r.body;
}

TEST_F(ApiEdge, TheLargestRawLimitAtTheLimitAndOneByteOver) {
  const size_t limit = 256ull * 1024 * 1024;
  std::string body(limit, 'z');
  auto r = server->api(token).raw("POST", "/edgecheck/raw256/a", body,
                                  {"Content-Type: application/octet-stream"});
  ASSERT_EQ(r.status, 200) << r.body << r.error;
  EXPECT_EQ(r.json()["bytes"].get<size_t>(), limit);
  body.push_back('z');
  r = server->api(token).raw("POST", "/edgecheck/raw256/a", body,
                             {"Content-Type: application/octet-stream"});
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.json().value("error", "").find("256 MB"), std::string::npos) << r.body;
}

TEST_F(ApiEdge, AChunkedBodyWhoseCrlfStraddles4096BytesArrivesWhole) {
  // Pistache reads 4096 bytes at a time and spins forever when a chunk's CRLF is split across
  // reads; the edge must de-chunk before berthd sees it.
  std::string head = "POST /edgecheck/raw64 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     token + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
  std::string payload;
  std::string wire = head;
  // The first chunk ends so that its trailing CRLF falls on bytes 4095/4096 of the stream.
  size_t first = 4095 - head.size() - 5;  // "fxx\r\n" is 5 bytes of chunk header
  std::string chunk1 = bodyOf(first);
  char size_hex[16];
  snprintf(size_hex, sizeof size_hex, "%zx", chunk1.size());
  wire += std::string(size_hex) + "\r\n" + chunk1 + "\r\n";
  std::string chunk2 = bodyOf(9000);
  snprintf(size_hex, sizeof size_hex, "%zx", chunk2.size());
  wire += std::string(size_hex) + "\r\n" + chunk2 + "\r\n0\r\n\r\n";
  payload = chunk1 + chunk2;

  int fd = connectTo(server->port());
  ASSERT_GE(fd, 0);
  // Send in pieces so the split happens on the wire too.
  ASSERT_TRUE(sendAll(fd, wire.substr(0, 4095)));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(sendAll(fd, wire.substr(4095)));
  std::string response = readResponse(fd);
  close(fd);
  ASSERT_NE(response.find("200 OK"), std::string::npos) << response.substr(0, 300);
  EXPECT_NE(response.find(berth::core::sha256Hex(payload)), std::string::npos);
  EXPECT_EQ(server->api().get("/regions").status, 200);
}

TEST_F(ApiEdge, AClientSendingPastALimitDoesNotStallOthers) {
  int fd = connectTo(server->port());
  ASSERT_GE(fd, 0);
  std::string head = "POST /edgecheck/json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                     token +
                     "\r\nContent-Type: application/json\r\nContent-Length: 3145728\r\n\r\n";
  ASSERT_TRUE(sendAll(fd, head));
  std::atomic<bool> done{false};
  std::thread pusher([&] {
    std::string mb(1024 * 1024, 'a');
    for (int i = 0; i < 3 && !done; ++i)
      if (!sendAll(fd, mb)) break;
  });
  std::string response = readResponse(fd);
  EXPECT_NE(response.find("413"), std::string::npos) << response.substr(0, 200);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(server->api().get("/regions").status, 200);
  done = true;
  shutdown(fd, SHUT_RDWR);
  pusher.join();
  close(fd);
}

TEST_F(ApiEdge, FileAnswersAreSentByTheEdgeWithRangeAndConditionals) {
  std::string dir = server->dataDir() + "/served";
  std::filesystem::create_directories(dir);
  std::string content = bodyOf(10000);
  std::ofstream(dir + "/f.bin", std::ios::binary) << content;
  auto r = server->api().get("/edgecheck/file?path=served/f.bin");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, content);
  EXPECT_EQ(r.header("x-accel-redirect"), "") << "the internal redirect leaked to the client";
  std::string etag = r.header("etag");
  ASSERT_FALSE(etag.empty());
  r = server->api().get("/edgecheck/file?path=served/f.bin", {"Range: bytes=100-199"});
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, content.substr(100, 100));
  r = server->api().get("/edgecheck/file?path=served/f.bin", {"If-None-Match: " + etag});
  EXPECT_EQ(r.status, 304);
  // The internal locations cannot be asked for directly.
  EXPECT_EQ(server->api().get("/_berth_file/served/f.bin").status, 404);
}

TEST_F(ApiEdge, ProxyAnswersAreCarriedOutByTheEdgeWithTheBody) {
  // A one-request app on a loopback port that echoes what reached it.
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  int app_port = ntohs(addr.sin_port);
  std::string seen;
  std::thread app([&] {
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    seen = readResponse(fd);  // a request has the same framing as a response
    std::string body = "{\"app\":true}";
    sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    close(fd);
  });
  auto r = server->api().raw("POST", "/app/path?proxy_to=" + std::to_string(app_port), "hello app",
                             {"Host: shop-abcd.localhost", "Content-Length: 9"});
  app.join();
  close(listener);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["app"], true);
  EXPECT_EQ(seen.rfind("POST /app/path?proxy_to=", 0), 0u) << seen;
  EXPECT_NE(seen.find("hello app"), std::string::npos) << "the body did not reach the app";
  EXPECT_NE(seen.find("shop-abcd.localhost"), std::string::npos) << seen;
}

TEST_F(ApiEdge, NginxComesBackAfterBeingKilled) {
  std::string pid_text = readFile(server->dataDir() + "/edge/nginx.pid");
  ASSERT_FALSE(pid_text.empty());
  pid_t nginx = static_cast<pid_t>(std::stol(pid_text));
  ASSERT_EQ(kill(nginx, SIGKILL), 0);
  // The dead master's workers may answer for a moment; what counts is a new master serving.
  bool back = false;
  std::string again;
  for (int i = 0; i < 200 && !back; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    again = readFile(server->dataDir() + "/edge/nginx.pid");
    back = !again.empty() && again != pid_text && server->api().get("/regions").status == 200;
  }
  EXPECT_TRUE(back) << "nginx was not restarted: " << server->output();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(server->api().get("/regions").status, 200);
}

namespace {

// An app on a loopback port answering every request "<target> #<n>" (n counts requests), one
// request per connection (the edge asks apps with Connection: close).
class CountingApp {
 public:
  CountingApp() {
    listener_ = listenLoopback(64, port_);
    thread_ = std::thread([this] {
      for (;;) {
        int fd = accept(listener_, nullptr, nullptr);
        if (fd < 0) return;  // shut down
        timeval tv{10, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        std::string request = readHttpRequest(fd);
        std::string target = request.substr(0, request.find("\r\n"));
        target = target.substr(target.find(' ') + 1);
        target = target.substr(0, target.find(' '));
        std::string body = target + " #" + std::to_string(++requests_);
        sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        close(fd);
      }
    });
  }
  ~CountingApp() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }
  int port() const { return port_; }
  int requests() const { return requests_; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::thread thread_;
};

nlohmann::json cacheRules(const std::string& host, const std::string& key, int ttl) {
  return {{"rules", nlohmann::json::array({{{"host", host}, {"key", key}, {"ttl_seconds", ttl}}})}};
}

}  // namespace

TEST_F(ApiEdge, ProxyCachedAnswersAreServedByTheEdgeCache) {
  CountingApp app;
  const std::string host = "Host: cached-abcd.localhost";
  const std::string page = "/page?cached_to=" + std::to_string(app.port()) + "&ttl=60";
  auto calls = [&] { return server->api().get("/edgecheck/project_calls").json()["calls"]; };

  // Before a rule, a cached proxy answer is an ordinary one.
  auto plain = server->api().get(page, {host});
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(plain.header("x-berth-cache"), "MISS");
  EXPECT_EQ(plain.header("x-berth-cache-ttl"), "") << "the core's header reached the client";
  EXPECT_EQ(server->api().get(page, {host}).header("x-berth-cache"), "MISS");

  // A rule the edge cannot take is refused in the core's words, and nothing changes.
  auto bad =
      server->api().post("/edgecheck/edge_cache", cacheRules("cached-abcd.localhost", "a;b", 60));
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(
      bad.json()["error"],
      "edge cache key for 'cached-abcd.localhost' must be 1 to 100 of A-Z a-z 0-9 . _ -: 'a;b'");

  ASSERT_EQ(server->api()
                .post("/edgecheck/edge_cache", cacheRules("cached-abcd.localhost", "rel1.0", 60))
                .status,
            204);
  // Once the edge has loaded the rule, the second of two requests is a HIT.
  ASSERT_TRUE([&] {
    for (int i = 0; i < 300; ++i) {
      if (server->api().get(page, {host}).header("x-berth-cache") == "HIT") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }()) << "no HIT after the rule was set";
  // Every HIT is answered without berthd or the app. (Right after a reload, an old nginx worker
  // may still take a request and ask berthd: that one is a MISS, so try until a HIT.)
  std::string cached_body;
  for (int i = 0; i < 50 && cached_body.empty(); ++i) {
    auto calls_before = calls();
    int app_before = app.requests();
    auto hit = server->api().get(page, {host});
    if (hit.header("x-berth-cache") != "HIT") continue;
    EXPECT_EQ(calls(), calls_before) << "the HIT reached berthd";
    EXPECT_EQ(app.requests(), app_before) << "the HIT reached the app";
    cached_body = hit.body;
  }
  ASSERT_FALSE(cached_body.empty());
  int app_before = app.requests();

  // Other methods go to the app every time.
  auto post = server->api().raw("POST", page, "x", {host, "Content-Length: 1"});
  EXPECT_EQ(post.header("x-berth-cache"), "MISS");
  EXPECT_EQ(app.requests(), app_before + 1);

  // A new key is a fresh cache.
  ASSERT_EQ(server->api()
                .post("/edgecheck/edge_cache", cacheRules("cached-abcd.localhost", "rel1.1", 60))
                .status,
            204);
  ASSERT_TRUE([&] {
    for (int i = 0; i < 300; ++i) {
      if (server->api().get(page, {host}).body != cached_body) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }()) << "the old entry outlived its key";

  // Clearing the rules turns the cache off for the host.
  ASSERT_EQ(
      server->api().post("/edgecheck/edge_cache", {{"rules", nlohmann::json::array()}}).status,
      204);
  ASSERT_TRUE([&] {
    for (int i = 0; i < 300; ++i) {
      if (server->api().get(page, {host}).header("x-berth-cache") == "MISS" &&
          server->api().get(page, {host}).header("x-berth-cache") == "MISS")
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }());
}
