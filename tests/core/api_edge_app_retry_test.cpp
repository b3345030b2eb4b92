// ctest-label: api (starts a real berthd)
// An app that refuses the edge's connection (stopped or restarted between berthd's X-Accel
// answer and nginx's connect) gets the request handed to berthd once more; one that may have
// read it never does, and the second refusal is the edge's JSON 502. Proxied and FastCGI.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"
#include "support/loopback_socket.hpp"

using namespace berth::testing;

namespace {

const char* const kHost = "Host: retry-abcd.localhost";

class ApiEdgeAppRetry : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "edgecheck"};
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }

  static nlohmann::json projectCalls() {
    return server->api().get("/edgecheck/project_calls").json();
  }
};

// A loopback port nothing listens on: a connect to it is refused.
int closedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A one-connection app on loopback: reads a request (head and Content-Length body), then
// answers 200 with `answer`, or closes without a word when `answer` is empty.
class OneShotApp {
 public:
  explicit OneShotApp(std::string answer) : answer_(std::move(answer)) {
    listener_ = listenLoopback(4, port_);
    thread_ = std::thread([this] {
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;  // shut down
      timeval tv{30, 0};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      seen_ = readHttpRequest(fd);
      if (!answer_.empty()) {
        std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                            std::to_string(answer_.size()) + "\r\nConnection: close\r\n\r\n" +
                            answer_;
        ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
      }
      close(fd);
    });
  }
  ~OneShotApp() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  // What reached the app; read after the client's answer (the thread has finished by then).
  std::string seen() {
    shutdown(listener_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    return seen_;
  }

 private:
  std::string answer_;
  int listener_ = -1;
  int port_ = 0;
  std::string seen_;
  std::thread thread_;
};

}  // namespace

TEST_F(ApiEdgeAppRetry, ARefusedAppIsAskedForAgainWithTheMethodAndTheWholeBody) {
  OneShotApp app("from the live app");
  // Larger than a socket buffer's worth of small writes, with a byte pattern a cut would show.
  std::string body(300 * 1024, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + (i * 7) % 26);
  long before = projectCalls()["calls"].get<long>();
  auto r = server->api().raw("POST",
                             "/app/retry?key=post&proxy_to=" + std::to_string(closedPort()) +
                                 "&again_to=" + std::to_string(app.port()),
                             body, {kHost, "Content-Type: application/octet-stream"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "from the live app");
  auto calls = projectCalls();
  EXPECT_EQ(calls["calls"].get<long>() - before, 2) << "berthd was not asked exactly twice";
  // berthd heard the client's method and body the second time too.
  EXPECT_EQ(calls["last_method"], "POST");
  EXPECT_EQ(calls["last_body"].get<std::string>(), body.substr(0, 4096));
  std::string seen = app.seen();
  EXPECT_EQ(seen.rfind("POST /app/retry?key=post&", 0), 0u) << seen.substr(0, 200);
  size_t head_end = seen.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos);
  EXPECT_EQ(seen.substr(head_end + 4) == body, true)
      << "the app got " << seen.size() - head_end - 4 << " body bytes of " << body.size();
}

TEST_F(ApiEdgeAppRetry, TwoRefusalsAreTheEdgesJsonAnswerAfterAskingTwice) {
  long before = projectCalls()["calls"].get<long>();
  auto r = server->api().raw("GET",
                             "/app/retry?key=twice&proxy_to=" + std::to_string(closedPort()) +
                                 "&again_to=" + std::to_string(closedPort()),
                             "", {kHost});
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json") << r.body;
  EXPECT_EQ(r.json().value("error", ""), "the app is not answering; try again") << r.body;
  EXPECT_EQ(projectCalls()["calls"].get<long>() - before, 2);
}

TEST_F(ApiEdgeAppRetry, AnAppThatReadTheRequestIsNeverAskedAgain) {
  OneShotApp silent("");  // reads the request, then closes without answering
  OneShotApp live("must not be reached");
  long before = projectCalls()["calls"].get<long>();
  auto r = server->api().raw("POST",
                             "/app/retry?key=read&proxy_to=" + std::to_string(silent.port()) +
                                 "&again_to=" + std::to_string(live.port()),
                             "charge the card once", {kHost, "Content-Type: text/plain"});
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json") << r.body;
  EXPECT_EQ(r.json().value("error", ""), "the app is not answering; try again") << r.body;
  EXPECT_EQ(projectCalls()["calls"].get<long>() - before, 1) << "the request was sent twice";
  EXPECT_NE(silent.seen().find("charge the card once"), std::string::npos);
  EXPECT_EQ(live.seen(), "");
}

TEST_F(ApiEdgeAppRetry, AFastCgiAppThatRefusedIsAskedForAgainOnce) {
  long before = projectCalls()["calls"].get<long>();
  auto r = server->api().raw("POST",
                             "/app/retry.php?key=fcgi&fcgi_to=" + std::to_string(closedPort()) +
                                 "&again_to=" + std::to_string(closedPort()),
                             "a=1", {kHost, "Content-Type: application/x-www-form-urlencoded"});
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json") << r.body;
  EXPECT_EQ(r.json().value("error", ""), "the app is not answering; try again") << r.body;
  auto calls = projectCalls();
  EXPECT_EQ(calls["calls"].get<long>() - before, 2);
  EXPECT_EQ(calls["last_method"], "POST");
  EXPECT_EQ(calls["last_body"], "a=1");
}
