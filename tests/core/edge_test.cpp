// nginx in front of a tiny blocking HTTP/1.1 backend that reports what reached it.
#include "edge/edge.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "support/eventually.hpp"
#include "support/loopback_socket.hpp"

using namespace berth::core;
using berth::testing::connectLoopback;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr uint64_t kMiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Helpers

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/berth-edge.XXXXXX";
    path_ = ::mkdtemp(pattern);
    // nginx workers run as nobody when the test runs as root: they must reach temp dirs.
    fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string randomBytes(size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (auto& c : bytes) c = static_cast<char>(generator() & 0xff);
  return bytes;
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A local effect (a file, a process), polled every 20 ms for 15 s at most.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds limit = 15s) {
  return berth::testing::eventually(condition, limit, 20ms);
}

void sendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent <= 0) return;  // the peer may close early (413): the answer is what matters
    data.remove_prefix(static_cast<size_t>(sent));
  }
}

// Parses "name: value" lines into lower-case names.
std::map<std::string, std::string> parseHeaderLines(const std::string& block) {
  std::map<std::string, std::string> headers;
  std::istringstream lines(block);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    headers[lower(line.substr(0, colon))] = value;
  }
  return headers;
}

// Decodes a complete chunked body starting at `from`; false when more bytes are needed.
bool decodeChunked(const std::string& data, size_t from, std::string& body, size_t& end) {
  body.clear();
  size_t pos = from;
  for (;;) {
    auto line_end = data.find("\r\n", pos);
    if (line_end == std::string::npos) return false;
    size_t size = std::stoul(data.substr(pos, line_end - pos), nullptr, 16);
    pos = line_end + 2;
    if (size == 0) {
      auto trailer_end = data.find("\r\n", pos);
      if (trailer_end == std::string::npos) return false;
      end = trailer_end + 2;
      return true;
    }
    if (data.size() < pos + size + 2) return false;
    body.append(data, pos, size);
    pos += size + 2;
  }
}

// ---------------------------------------------------------------------------------------------
// The client side: raw requests, answers read until the edge closes.

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  json bodyJson() const { return json::parse(body, nullptr, false); }
};

Response parseResponse(const std::string& raw) {
  Response response;
  auto head_end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || head_end == std::string::npos) return response;
  response.status = std::stoi(raw.substr(9, 3));
  response.headers = parseHeaderLines(raw.substr(0, head_end));
  if (lower(response.headers["transfer-encoding"]) == "chunked") {
    size_t end = 0;
    decodeChunked(raw, head_end + 4, response.body, end);
  } else {
    response.body = raw.substr(head_end + 4);
  }
  return response;
}

// Sends raw bytes (on a thread, so a large body cannot block reading an early answer).
// half_close: tell the edge nothing more comes, so that after an early 413 it does not linger
// waiting for a body that is never sent (only for requests answered without the backend:
// nginx treats a half-closed client as gone while it waits for the backend).
Response roundTrip(uint16_t port, const std::string& raw, bool half_close = false) {
  int fd = connectLoopback(port);
  if (fd < 0) return {};
  std::thread sender([fd, &raw, half_close] {
    sendAll(fd, raw);
    if (half_close) ::shutdown(fd, SHUT_WR);
  });
  std::string received;
  char buffer[65536];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) received.append(buffer, got);
  ::shutdown(fd, SHUT_RDWR);  // unblocks the sender if the edge stopped reading
  sender.join();
  ::close(fd);
  return parseResponse(received);
}

std::string requestText(const std::string& method, const std::string& host,
                        const std::string& target, const std::string& body = "",
                        const std::vector<std::string>& headers = {}) {
  std::string text =
      method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n";
  for (const auto& header : headers) text += header + "\r\n";
  if (!body.empty() || method == "POST") {
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return text + "\r\n" + body;
}

Response get(uint16_t port, const std::string& host, const std::string& target,
             const std::vector<std::string>& headers = {}) {
  return roundTrip(port, requestText("GET", host, target, "", headers));
}

// ---------------------------------------------------------------------------------------------
// The backend side: one thread per connection, keep-alive, answers what it saw.

struct SeenRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

struct Reply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::string> body;  // nullopt: echo the request as JSON
};

class TestBackend {
 public:
  using Handler = std::function<Reply(const SeenRequest&)>;

  explicit TestBackend(Handler handler = {}) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(listen_fd_, 64);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }

  ~TestBackend() {
    stopping_ = true;
    acceptor_.join();
    ::close(listen_fd_);
    std::vector<std::thread> workers;
    {
      std::lock_guard lock(mutex_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
      workers.swap(workers_);
    }
    for (auto& worker : workers) worker.join();
  }

  uint16_t port() const { return port_; }

  std::vector<SeenRequest> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  size_t countTarget(const std::string& target) const {
    std::lock_guard lock(mutex_);
    return static_cast<size_t>(std::count_if(seen_.begin(), seen_.end(),
                                             [&](const auto& s) { return s.target == target; }));
  }

 private:
  void acceptLoop() {
    while (!stopping_) {
      pollfd pfd{listen_fd_, POLLIN, 0};
      if (::poll(&pfd, 1, 50) <= 0) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard lock(mutex_);
      open_fds_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    std::string buffer;
    while (auto request = readRequest(fd, buffer)) {
      {
        std::lock_guard lock(mutex_);
        seen_.push_back(*request);
      }
      Reply reply = handler_ ? handler_(*request) : Reply{};
      std::string body = reply.body ? *reply.body : echo(*request);
      std::string text = "HTTP/1.1 " + std::to_string(reply.status) + " Test\r\n";
      bool typed = false;
      for (const auto& [name, value] : reply.headers) {
        typed = typed || lower(name) == "content-type";
        if (!value.empty()) text += name + ": " + value + "\r\n";  // empty: leave it out
      }
      if (!typed) text += "Content-Type: application/json\r\n";
      text += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      sendAll(fd, text);
    }
    std::lock_guard lock(mutex_);
    open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
    ::close(fd);
  }

  static std::string echo(const SeenRequest& request) {
    json headers = json::object();
    for (const auto& [name, value] : request.headers) headers[name] = value;
    return json{{"method", request.method},
                {"target", request.target},
                {"headers", headers},
                {"body_length", request.body.size()}}
        .dump();
  }

  static bool readMore(int fd, std::string& buffer) {
    char chunk[65536];
    ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(got));
    return true;
  }

  static std::optional<SeenRequest> readRequest(int fd, std::string& buffer) {
    size_t head_end;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!readMore(fd, buffer)) return std::nullopt;
    }
    SeenRequest request;
    std::string head = buffer.substr(0, head_end);
    std::istringstream request_line(head.substr(0, head.find("\r\n")));
    request_line >> request.method >> request.target;
    request.headers = parseHeaderLines(head.substr(head.find("\r\n") + 2));
    size_t body_start = head_end + 4;
    if (lower(request.header("transfer-encoding")).find("chunked") != std::string::npos) {
      size_t end = 0;
      while (!decodeChunked(buffer, body_start, request.body, end)) {
        if (!readMore(fd, buffer)) return std::nullopt;
      }
      buffer.erase(0, end);
    } else {
      size_t length = request.header("content-length").empty()
                          ? 0
                          : std::stoul(request.header("content-length"));
      while (buffer.size() < body_start + length) {
        if (!readMore(fd, buffer)) return std::nullopt;
      }
      request.body = buffer.substr(body_start, length);
      buffer.erase(0, body_start + length);
    }
    return request;
  }

  Handler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
  std::vector<SeenRequest> seen_;
};

// ---------------------------------------------------------------------------------------------
// An edge in front of a backend, in its own directory.

struct EdgeUnderTest {
  explicit EdgeUnderTest(TestBackend::Handler handler = {},
                         const std::function<void(EdgeLayout&)>& adjust = {})
      : backend(std::move(handler)) {
    layout.listen = {"127.0.0.1", freeLoopbackPort()};
    layout.apps_domain = "localhost";
    layout.backend_port = backend.port();
    layout.data_dir = dir.path();
    layout.runtime_dir = dir.path() + "/edge";
    layout.access_log_file = dir.path() + "/access.log";
    layout.spooled_routes = {{"POST", "/projects/:name/files/*path", 4 * kMiB}};
    layout.worker_processes = 1;  // one worker: access log lines arrive in order
    if (adjust) adjust(layout);
    edge = std::make_unique<Edge>(kNginx, layout);
    edge->start();
  }

  uint16_t port() const { return layout.listen.port; }

  TempDir dir;
  TestBackend backend;
  EdgeLayout layout;
  std::unique_ptr<Edge> edge;
};

bool isZombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  return line.find(") Z") != std::string::npos;
}

std::vector<pid_t> processesInGroup(pid_t group) {
  std::vector<pid_t> members;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    if (::getpgid(pid) == group && !isZombie(pid)) members.push_back(pid);
  }
  return members;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST(Edge, ApiHostReachesTheBackendMarkedApi) {
  EdgeUnderTest t;
  auto response = get(t.port(), "api.localhost", "/projects?x=1");
  ASSERT_EQ(response.status, 200) << response.body;
  auto seen = response.bodyJson();
  EXPECT_EQ(seen["method"], "GET");
  EXPECT_EQ(seen["target"], "/projects?x=1");
  EXPECT_EQ(seen["headers"]["x-berth-edge"], "api");
  EXPECT_EQ(seen["headers"]["host"], "api.localhost");
  EXPECT_EQ(seen["headers"]["x-real-ip"], "127.0.0.1");
  EXPECT_EQ(seen["headers"]["connection"], "keep-alive");
  EXPECT_TRUE(std::regex_match(seen["headers"]["x-berth-request-id"].get<std::string>(),
                               std::regex("[0-9a-f]{8}-[0-9]+-[0-9]+-1")))
      << seen["headers"]["x-berth-request-id"];
  EXPECT_FALSE(seen["headers"].contains("x-berth-body-file"));
}

TEST(Edge, ProjectHostsAndUnknownHosts) {
  EdgeUnderTest t;
  auto project = get(t.port(), "foo-abcd.localhost", "/");
  ASSERT_EQ(project.status, 200);
  EXPECT_EQ(project.bodyJson()["headers"]["x-berth-edge"], "project");
  EXPECT_EQ(project.bodyJson()["headers"]["host"], "foo-abcd.localhost");
  auto upper = get(t.port(), "FOO-abcd.LOCALHOST", "/");
  EXPECT_EQ(upper.bodyJson()["headers"]["x-berth-edge"], "project");
  // Anything else is the API's (the default server).
  auto unknown = get(t.port(), "somewhere.example", "/");
  EXPECT_EQ(unknown.bodyJson()["headers"]["x-berth-edge"], "api");
}

TEST(Edge, ClientCannotNameABodyFile) {
  EdgeUnderTest t;
  auto response = get(t.port(), "api.localhost", "/x",
                      {"X-Berth-Body-File: /etc/shadow", "X-Berth-Edge: project"});
  auto headers = response.bodyJson()["headers"];
  EXPECT_FALSE(headers.contains("x-berth-body-file"));
  EXPECT_EQ(headers["x-berth-edge"], "api");
}

// The proof reaches berthd on every request; a client's own is replaced; the files holding it
// are private.
TEST(Edge, TheEdgeProofReachesTheBackendAndStaysPrivate) {
  const std::string proof(64, 'c');
  EdgeUnderTest t({}, [&](EdgeLayout& layout) { layout.edge_proof = proof; });
  auto seen = get(t.port(), "api.localhost", "/x", {"X-Berth-Edge-Proof: " + std::string(64, '0')})
                  .bodyJson();
  EXPECT_EQ(seen["headers"]["x-berth-edge-proof"], proof);
  EXPECT_EQ(get(t.port(), "foo-abcd.localhost", "/").bodyJson()["headers"]["x-berth-edge-proof"],
            proof);
  struct stat st {};
  ASSERT_EQ(::stat(t.edge->configPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(t.layout.runtime_dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0066, 0u);
}

TEST(Edge, CustomHostsBecomeProjectTraffic) {
  EdgeUnderTest t;
  EXPECT_EQ(get(t.port(), "shop.example.com", "/").bodyJson()["headers"]["x-berth-edge"], "api");
  pid_t master = t.edge->pid();
  t.edge->setCustomHosts({"shop.example.com"});
  EXPECT_TRUE(eventually([&] {
    return get(t.port(), "shop.example.com", "/").bodyJson()["headers"]["x-berth-edge"] ==
           "project";
  }));
  EXPECT_EQ(t.edge->pid(), master);  // reloaded, not restarted
  // The reload is asynchronous: until the old worker has left, it may still take a request.
  ASSERT_TRUE(eventually([&] { return processesInGroup(master).size() == 2; }));

  // A refused configuration keeps the current one.
  std::ifstream before_file(t.edge->configPath());
  std::string before((std::istreambuf_iterator<char>(before_file)), {});
  t.edge->setCustomHosts({"bad host; include /etc/passwd"});
  std::ifstream after_file(t.edge->configPath());
  std::string after((std::istreambuf_iterator<char>(after_file)), {});
  EXPECT_EQ(before, after);
  EXPECT_EQ(get(t.port(), "shop.example.com", "/").bodyJson()["headers"]["x-berth-edge"],
            "project");
}

TEST(Edge, ProjectListenTakesProjectTraffic) {
  uint16_t project_port = freeLoopbackPort();
  EdgeUnderTest t({}, [&](EdgeLayout& layout) {
    layout.project_listens = {{"127.0.0.1", project_port}};
  });
  auto response = get(project_port, "api.localhost", "/");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.bodyJson()["headers"]["x-berth-edge"], "project");
}

TEST(Edge, SpooledRouteHandsTheBodyOverAsAFile) {
  const std::string body = randomBytes(3 * kMiB, 1);
  struct FileCheck {
    std::string path;
    bool existed = false;
    uintmax_t size = 0;
    bool same_bytes = false;
  };
  auto check = std::make_shared<FileCheck>();
  EdgeUnderTest t([check, &body](const SeenRequest& request) {
    auto path = request.header("x-berth-body-file");
    if (!path.empty()) {
      check->path = path;
      check->existed = fs::exists(path);  // read while the request is still open
      if (check->existed) {
        check->size = fs::file_size(path);
        std::ifstream in(path, std::ios::binary);
        std::string content((std::istreambuf_iterator<char>(in)), {});
        check->same_bytes = content == body;
      }
    }
    return Reply{};
  });
  auto response =
      roundTrip(t.port(), requestText("POST", "api.localhost", "/projects/blog/files/img/a.bin",
                                      body, {"Content-Type: application/octet-stream"}));
  ASSERT_EQ(response.status, 200) << response.body;
  auto seen = response.bodyJson();
  EXPECT_EQ(seen["body_length"], 0);
  EXPECT_EQ(seen["method"], "POST");
  EXPECT_EQ(seen["headers"]["x-berth-edge"], "api");
  EXPECT_TRUE(check->existed) << check->path;
  EXPECT_EQ(check->size, 3 * kMiB);
  EXPECT_TRUE(check->same_bytes);
  EXPECT_EQ(check->path.rfind(t.layout.runtime_dir + "/client_body/", 0), 0u) << check->path;
  // "clean": nginx removes the file once the request is over.
  EXPECT_TRUE(eventually([&] { return !fs::exists(check->path); }));

  // Its own limit: 4 MB here, refused from the Content-Length alone.
  auto too_big = roundTrip(t.port(),
                           "POST /projects/blog/files/b.bin HTTP/1.1\r\nHost: "
                           "api.localhost\r\nConnection: close\r\nContent-Length: " +
                               std::to_string(4 * kMiB + 1) + "\r\n\r\n",
                           true);
  EXPECT_EQ(too_big.status, 413);
  EXPECT_EQ(too_big.bodyJson()["error"],
            "the request body is too large for this route (limit 4 MB)");
  EXPECT_EQ(t.backend.countTarget("/projects/blog/files/b.bin"), 0u);

  // Other methods on that path arrive too, without a file.
  auto listing = get(t.port(), "api.localhost", "/projects/blog/files/img/a.bin");
  EXPECT_EQ(listing.status, 200);
  EXPECT_EQ(listing.bodyJson()["method"], "GET");
}

TEST(Edge, JsonBodyLimitIsExact) {
  EdgeUnderTest t;
  std::string exact(2 * kMiB, 'a');
  auto accepted = roundTrip(t.port(), requestText("POST", "api.localhost", "/projects", exact,
                                                  {"Content-Type: application/json"}));
  ASSERT_EQ(accepted.status, 200);
  EXPECT_EQ(accepted.bodyJson()["body_length"], 2 * kMiB);

  auto refused = roundTrip(t.port(), requestText("POST", "api.localhost", "/too-big", exact + "a",
                                                 {"Content-Type: application/json"}));
  EXPECT_EQ(refused.status, 413);
  EXPECT_EQ(refused.headers["content-type"], "application/json");
  EXPECT_EQ(refused.bodyJson()["error"],
            "the request body is too large for this route (limit 2 MB)");
  EXPECT_EQ(t.backend.countTarget("/too-big"), 0u);
}

TEST(Edge, ChunkedUploadArrivesWithContentLength) {
  EdgeUnderTest t;
  std::string head =
      "POST /projects HTTP/1.1\r\nHost: api.localhost\r\nConnection: close\r\n"
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  // The first chunk's closing CRLF straddles byte 4096 of the stream (Pistache's read size).
  size_t first_size = 4095 - head.size() - 5;  // "hhh\r\n" + data, then CR at byte 4095
  std::ostringstream size_line;
  size_line << std::hex << first_size << "\r\n";
  ASSERT_EQ(size_line.str().size(), 5u);
  std::string first = randomBytes(first_size, 2);
  std::string second = randomBytes(5000, 3);
  std::ostringstream second_line;
  second_line << std::hex << second.size() << "\r\n";
  std::string raw =
      head + size_line.str() + first + "\r\n" + second_line.str() + second + "\r\n0\r\n\r\n";
  ASSERT_EQ(raw.substr(4095, 2), "\r\n");

  int fd = connectLoopback(t.port());
  ASSERT_GE(fd, 0);
  sendAll(fd, std::string_view(raw).substr(0, 4096));
  std::this_thread::sleep_for(50ms);  // two segments; correctness does not depend on it
  sendAll(fd, std::string_view(raw).substr(4096));
  std::string received;
  char buffer[65536];
  ssize_t got;
  while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) received.append(buffer, got);
  ::close(fd);

  auto response = parseResponse(received);
  ASSERT_EQ(response.status, 200) << received;
  auto seen = t.backend.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].body, first + second);
  EXPECT_EQ(seen[0].header("content-length"), std::to_string(first.size() + second.size()));
  EXPECT_EQ(seen[0].header("transfer-encoding"), "");
}

TEST(Edge, OversizedUploadDoesNotStallOthers) {
  EdgeUnderTest t;
  // 1 MB past the JSON limit, sent chunked so nginx has to read until it crosses the limit.
  std::string body = std::string(3 * kMiB, 'x');
  std::ostringstream raw;
  raw << "POST /big HTTP/1.1\r\nHost: api.localhost\r\nConnection: close\r\n"
      << "Transfer-Encoding: chunked\r\n\r\n";
  for (size_t offset = 0; offset < body.size(); offset += 65536) {
    raw << std::hex << 65536 << "\r\n" << body.substr(offset, 65536) << "\r\n";
  }
  raw << "0\r\n\r\n";
  Response big;
  std::thread uploader([&] { big = roundTrip(t.port(), raw.str()); });
  auto other = get(t.port(), "api.localhost", "/meanwhile");
  uploader.join();
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.bodyJson()["error"], "the request body is too large for this route (limit 2 MB)");
  EXPECT_EQ(t.backend.countTarget("/big"), 0u);
}

TEST(Edge, AccelRedirectServesFilesWithRangeAndEtag) {
  EdgeUnderTest t([](const SeenRequest& request) {
    Reply reply{200, {{"X-Accel-Redirect", "/_berth_file/files/site/hello%20world.txt"}}, ""};
    if (request.target == "/untyped") reply.headers.emplace_back("Content-Type", "");
    return reply;
  });
  std::string content = randomBytes(10000, 4);
  fs::create_directories(t.dir.path() + "/files/site");
  std::ofstream(t.dir.path() + "/files/site/hello world.txt", std::ios::binary) << content;
  fs::permissions(t.dir.path() + "/files",
                  fs::perms::all & ~fs::perms::others_write & ~fs::perms::group_write);
  fs::permissions(t.dir.path() + "/files/site",
                  fs::perms::all & ~fs::perms::others_write & ~fs::perms::group_write);

  auto whole = get(t.port(), "foo.localhost", "/hello");
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.body, content);
  std::string etag = whole.headers["etag"];
  ASSERT_FALSE(etag.empty());

  // berthd's own Content-Type is kept (nginx copies it over the redirect)...
  EXPECT_EQ(whole.headers["content-type"], "application/json");

  auto part = get(t.port(), "foo.localhost", "/hello", {"Range: bytes=100-199"});
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, content.substr(100, 100));
  EXPECT_EQ(part.headers["content-range"], "bytes 100-199/10000");

  auto cached = get(t.port(), "foo.localhost", "/hello", {"If-None-Match: " + etag});
  EXPECT_EQ(cached.status, 304);
  EXPECT_TRUE(cached.body.empty());

  // ...and without one, nginx types the file from its name.
  auto untyped = get(t.port(), "foo.localhost", "/untyped");
  EXPECT_EQ(untyped.status, 200);
  EXPECT_EQ(untyped.headers["content-type"], "text/plain");

  // The internal locations are not reachable from outside.
  auto direct = roundTrip(t.port(),
                          "GET /_berth_file/files/site/hello%20world.txt HTTP/1.1\r\n"
                          "Host: foo.localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(direct.status, 404);
  EXPECT_NE(direct.body, content);
  EXPECT_EQ(t.backend.countTarget("/_berth_file/files/site/hello%20world.txt"), 0u);
}

namespace {

// What an app is sent for the client's POST /x/y?a=1&b=2 to foo-abcd.localhost: the request
// as the client made it, and the X-Forwarded-* facts.
void expectTheClientsPost(const SeenRequest& seen, const std::string& body) {
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.target, "/x/y?a=1&b=2");
  EXPECT_EQ(seen.body, body);
  EXPECT_EQ(seen.header("host"), "foo-abcd.localhost");
  EXPECT_EQ(seen.header("x-forwarded-host"), "foo-abcd.localhost");
  EXPECT_EQ(seen.header("x-forwarded-proto"), "http");
  EXPECT_EQ(seen.header("x-forwarded-for"), "127.0.0.1");
}

}  // namespace

TEST(Edge, AccelRedirectProxiesToAnAppWithMethodAndBody) {
  TestBackend app;
  std::string accel = "/_berth_proxy/" + std::to_string(app.port());
  EdgeUnderTest t([&accel](const SeenRequest& request) {
    return Reply{200, {{"X-Accel-Redirect", accel + request.target}}, ""};
  });
  std::string body = randomBytes(100000, 5);  // larger than a memory buffer: from a temp file
  auto response = roundTrip(t.port(), requestText("POST", "foo-abcd.localhost", "/x/y?a=1&b=2",
                                                  body, {"Content-Type: text/plain"}));
  ASSERT_EQ(response.status, 200) << response.body;
  auto seen = app.seen();
  ASSERT_EQ(seen.size(), 1u);
  expectTheClientsPost(seen[0], body);
  EXPECT_EQ(t.backend.seen().at(0).body, body);  // berthd saw it first

  // Escaped characters survive the decoded internal redirect.
  auto odd = get(t.port(), "foo-abcd.localhost", "/a%20b/c%3Fd");
  ASSERT_EQ(odd.status, 200);
  EXPECT_EQ(app.seen().back().target, "/a%20b/c%3Fd");
  EXPECT_EQ(app.seen().back().method, "GET");

  // An app answering X-Accel-Redirect cannot reach berthd's files.
  TestBackend sneaky([](const SeenRequest&) {
    return Reply{200, {{"X-Accel-Redirect", "/_berth_file/edge/nginx.conf"}}, "plain"};
  });
  accel = "/_berth_proxy/" + std::to_string(sneaky.port());
  auto refused = get(t.port(), "foo-abcd.localhost", "/steal");
  EXPECT_EQ(refused.body, "plain");
}

TEST(Edge, WebSocketUpgradeReachesTheApp) {
  // A one-connection app that switches protocols and then echoes bytes.
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  uint16_t app_port = ntohs(addr.sin_port);
  std::string upgrade_seen;
  std::thread app([&] {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string head;
    char buffer[4096];
    ssize_t got;
    while (head.find("\r\n\r\n") == std::string::npos &&
           (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
      head.append(buffer, static_cast<size_t>(got));
    }
    upgrade_seen = parseHeaderLines(head)["upgrade"];
    sendAll(fd,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\n\r\n");
    while ((got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
      sendAll(fd, std::string_view(buffer, static_cast<size_t>(got)));
    }
    ::close(fd);
  });

  EdgeUnderTest t([app_port](const SeenRequest&) {
    return Reply{
        200, {{"X-Accel-Redirect", "/_berth_proxy/" + std::to_string(app_port) + "/ws"}}, ""};
  });
  int fd = connectLoopback(t.port());
  ASSERT_GE(fd, 0);
  sendAll(fd,
          "GET /ws HTTP/1.1\r\nHost: chat.localhost\r\nUpgrade: websocket\r\n"
          "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          "Sec-WebSocket-Version: 13\r\n\r\n");
  std::string received;
  char buffer[4096];
  ssize_t got;
  while (received.find("\r\n\r\n") == std::string::npos &&
         (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
    received.append(buffer, static_cast<size_t>(got));
  }
  EXPECT_EQ(received.substr(0, 12), "HTTP/1.1 101");
  received.erase(0, received.find("\r\n\r\n") + 4);
  sendAll(fd, "ping over the tunnel");
  while (received.size() < 20 && (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
    received.append(buffer, static_cast<size_t>(got));
  }
  EXPECT_EQ(received, "ping over the tunnel");
  ::close(fd);
  app.join();
  ::close(listener);
  EXPECT_EQ(upgrade_seen, "websocket");
}

TEST(Edge, AppDownIsJson502) {
  uint16_t nobody_listens = freeLoopbackPort();
  EdgeUnderTest t([nobody_listens](const SeenRequest&) {
    return Reply{
        200, {{"X-Accel-Redirect", "/_berth_proxy/" + std::to_string(nobody_listens) + "/"}}, ""};
  });
  auto response = get(t.port(), "foo.localhost", "/");
  EXPECT_EQ(response.status, 502);
  EXPECT_EQ(response.bodyJson()["error"], "the app is not answering; try again");
}

TEST(Edge, BackendDownIsJson502) {
  uint16_t nobody_listens = freeLoopbackPort();
  EdgeUnderTest t({}, [&](EdgeLayout& layout) { layout.backend_port = nobody_listens; });
  auto response = get(t.port(), "api.localhost", "/projects");
  EXPECT_EQ(response.status, 502);
  EXPECT_EQ(response.headers["content-type"], "application/json");
  EXPECT_EQ(response.bodyJson()["error"], "berthd is not answering; try again");
}

TEST(Edge, BackendErrorsPassThroughUntouched) {
  EdgeUnderTest t([](const SeenRequest&) {
    return Reply{502, {}, R"({"error":"object storage did not confirm removal"})"};
  });
  auto response = get(t.port(), "api.localhost", "/projects/x");
  EXPECT_EQ(response.status, 502);
  EXPECT_EQ(response.bodyJson()["error"], "object storage did not confirm removal");
}

TEST(Edge, SupervisorRestartsAKilledMaster) {
  EdgeUnderTest t;
  pid_t master = t.edge->pid();
  ASSERT_GT(master, 0);
  ASSERT_EQ(::kill(master, SIGKILL), 0);
  ASSERT_TRUE(eventually([&] { return t.edge->restarts() >= 1; }));
  EXPECT_NE(t.edge->pid(), master);
  EXPECT_TRUE(eventually([&] { return get(t.port(), "api.localhost", "/").status == 200; }));
  // The old master's workers were cleaned up with it.
  EXPECT_TRUE(eventually([&] { return processesInGroup(master).empty(); }));
}

TEST(Edge, RequestIdsAreUniquePerRequestAndNewAfterAReload) {
  EdgeUnderTest t;
  auto idOf = [&] {
    return get(t.port(), "api.localhost", "/")
        .bodyJson()["headers"]["x-berth-request-id"]
        .get<std::string>();
  };
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.insert(idOf());
  EXPECT_EQ(ids.size(), 5u);
  auto prefix = [](const std::string& id) { return id.substr(0, id.find('-')); };
  const std::string before = prefix(*ids.begin());
  EXPECT_EQ(before.size(), 8u) << *ids.begin();
  // A reload starts nginx's connection counter again; the prefix keeps the ids apart.
  t.edge->setCustomHosts({"shop.example.com"});
  ASSERT_TRUE(t.edge->settle());
  EXPECT_TRUE(eventually([&] { return prefix(idOf()) != before; }));
}

TEST(Edge, AccessLogEntriesArrive) {
  std::mutex mutex;
  std::vector<AccessEntry> entries;
  TempDir log_dir;
  std::string log_path = log_dir.path() + "/access.log";
  AccessLogTail tail(log_path, [&](std::string_view line) {
    AccessEntry entry;
    ASSERT_TRUE(parseAccessLine(line, entry)) << line;
    std::lock_guard lock(mutex);
    entries.push_back(entry);
  });
  tail.start();

  TestBackend app;
  EdgeUnderTest t(
      [&app](const SeenRequest& request) {
        if (request.target == "/app") {
          return Reply{
              200, {{"X-Accel-Redirect", "/_berth_proxy/" + std::to_string(app.port()) + "/"}}, ""};
        }
        return Reply{};
      },
      [&](EdgeLayout& layout) { layout.access_log_file = log_path; });

  auto entriesWithId = [&](const std::string& id) {
    std::lock_guard lock(mutex);
    std::vector<AccessEntry> found;
    for (const auto& entry : entries) {
      if (entry.request_id == id) found.push_back(entry);
    }
    return found;
  };

  auto api = get(t.port(), "api.localhost", "/projects?a=b");
  std::string api_id = api.bodyJson()["headers"]["x-berth-request-id"];
  ASSERT_TRUE(eventually([&] { return !entriesWithId(api_id).empty(); }));
  auto entry = entriesWithId(api_id).front();
  EXPECT_EQ(entry.status, 200);
  EXPECT_EQ(entry.edge, "api");
  EXPECT_EQ(entry.method, "GET");
  EXPECT_EQ(entry.path, "/projects?a=b");
  EXPECT_EQ(entry.host, "api.localhost");
  EXPECT_EQ(entry.remote, "127.0.0.1");
  EXPECT_GT(entry.bytes_sent, 0u);
  EXPECT_GT(entry.at, 1600000000);

  // A request handed to an app through X-Accel-Redirect is logged once, as project traffic.
  auto proxied = get(t.port(), "foo.localhost", "/app");
  ASSERT_EQ(proxied.status, 200);
  std::string proxied_id = t.backend.seen().back().header("x-berth-request-id");
  ASSERT_TRUE(eventually([&] { return !entriesWithId(proxied_id).empty(); }));
  auto marker = get(t.port(), "api.localhost", "/marker");
  std::string marker_id = marker.bodyJson()["headers"]["x-berth-request-id"];
  ASSERT_TRUE(eventually([&] { return !entriesWithId(marker_id).empty(); }));
  auto proxied_entries = entriesWithId(proxied_id);
  ASSERT_EQ(proxied_entries.size(), 1u);
  EXPECT_EQ(proxied_entries[0].edge, "project");
  EXPECT_EQ(proxied_entries[0].path, "/app");

  // A 413 from nginx itself is logged too.
  auto refused = roundTrip(t.port(),
                           "POST /x HTTP/1.1\r\nHost: api.localhost\r\nConnection: "
                           "close\r\nContent-Length: 99999999\r\n\r\n",
                           true);
  ASSERT_EQ(refused.status, 413);
  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return std::any_of(entries.begin(), entries.end(),
                       [](const AccessEntry& e) { return e.status == 413 && e.path == "/x"; });
  }));
  tail.stop();
}

TEST(Edge, StopLeavesNoNginxProcess) {
  EdgeUnderTest t;
  pid_t master = t.edge->pid();
  ASSERT_GT(master, 0);
  ASSERT_FALSE(processesInGroup(master).empty());
  t.edge->stop();
  EXPECT_TRUE(processesInGroup(master).empty());
  EXPECT_LT(connectLoopback(t.port()), 0);
  t.edge->stop();  // twice is fine
}

TEST(Edge, StartReplacesAnNginxLeftByACrashedBerthd) {
  TempDir dir;
  TestBackend backend;
  EdgeLayout layout;
  layout.listen = {"127.0.0.1", freeLoopbackPort()};
  layout.apps_domain = "localhost";
  layout.backend_port = backend.port();
  layout.data_dir = dir.path();
  layout.runtime_dir = dir.path() + "/edge";
  layout.access_log_file = dir.path() + "/access.log";
  {
    Edge first(kNginx, layout);
    first.start();
  }
  // What a berthd killed with SIGKILL leaves behind: a master on our config and our port.
  SpawnOptions options;
  options.output_file = layout.runtime_dir + "/orphan.log";
  Child orphan = spawn(
      {kNginx, "-p", layout.runtime_dir + "/", "-c", layout.runtime_dir + "/nginx.conf"}, options);
  ASSERT_TRUE(eventually([&] {
    std::ifstream pid_file(layout.runtime_dir + "/nginx.pid");
    pid_t pid = 0;
    return pid_file >> pid && pid == orphan.pid();
  }));
  Edge second(kNginx, layout);
  second.start();
  EXPECT_NE(second.pid(), orphan.pid());
  EXPECT_TRUE(orphan.wait(10s).has_value());
  EXPECT_EQ(get(layout.listen.port, "api.localhost", "/").status, 200);
}

TEST(Edge, StartReportsATakenPort) {
  TempDir dir;
  int blocker = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(blocker, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(blocker, 1), 0);
  socklen_t len = sizeof addr;
  ::getsockname(blocker, reinterpret_cast<sockaddr*>(&addr), &len);

  EdgeLayout layout;
  layout.listen = {"127.0.0.1", ntohs(addr.sin_port)};
  layout.apps_domain = "localhost";
  layout.backend_port = 1;
  layout.data_dir = dir.path();
  layout.runtime_dir = dir.path() + "/edge";
  layout.access_log_file = dir.path() + "/access.log";
  Edge edge(kNginx, layout);
  try {
    edge.start();
    FAIL() << "start did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Address already in use"), std::string::npos) << e.what();
  }
  ::close(blocker);
}

TEST(Edge, StartReportsARefusedConfiguration) {
  if (::geteuid() != 0) GTEST_SKIP() << "nginx ignores the user directive unless root";
  TempDir dir;
  EdgeLayout layout;
  layout.listen = {"127.0.0.1", freeLoopbackPort()};
  layout.apps_domain = "localhost";
  layout.backend_port = 1;
  layout.data_dir = dir.path();
  layout.runtime_dir = dir.path() + "/edge";
  layout.access_log_file = dir.path() + "/access.log";
  layout.worker_user = "berth-no-such-user";
  Edge edge(kNginx, layout);
  try {
    edge.start();
    FAIL() << "start did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("berth-no-such-user"), std::string::npos) << e.what();
  }
}

TEST(Edge, WorkerUserOwnsTheTempDirs) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  EdgeUnderTest t({}, [](EdgeLayout& layout) {
    layout.worker_user = "nobody";
    layout.cache_rules = {{"cached.localhost", "k", 60}};
  });
  auto nobody = lookupUser("nobody");
  for (std::string dir : {"client_body", "cache"}) {
    struct stat st {};
    ASSERT_EQ(::stat((t.layout.runtime_dir + "/" + dir).c_str(), &st), 0) << dir;
    EXPECT_EQ(st.st_uid, nobody->uid) << dir;
  }
  EXPECT_EQ(get(t.port(), "api.localhost", "/").status, 200);
}

// ---------------------------------------------------------------------------------------------
// The edge cache: a fake berthd answers every project request with a cache redirect to an app
// that numbers its answers per target, so a repeated number means the answer came from nginx.

namespace {

struct CacheBench {
  // The app: "<target> #<n>" where n counts the requests for that target; headers by path.
  TestBackend app{[this](const SeenRequest& request) {
    int n = 0;
    {
      std::lock_guard lock(mutex);
      n = ++served[request.target];
    }
    std::string path = request.target.substr(0, request.target.find('?'));
    Reply reply{200, {{"Content-Type", "text/plain"}}, request.target + " #" + std::to_string(n)};
    if (path == "/nostore") reply.headers.emplace_back("Cache-Control", "no-store");
    if (path == "/private") reply.headers.emplace_back("Cache-Control", "private, max-age=60");
    if (path == "/nocache") reply.headers.emplace_back("Cache-Control", "no-cache");
    if (path == "/cookie") reply.headers.emplace_back("Set-Cookie", "session=1");
    if (path == "/maxage1") reply.headers.emplace_back("Cache-Control", "max-age=1");
    if (path == "/maxage60") reply.headers.emplace_back("Cache-Control", "public, max-age=60");
    if (path == "/claims-hit") reply.headers.emplace_back("x-berth-cache", "HIT");
    if (path == "/accel") reply.headers.emplace_back("X-Accel-Redirect", "/_berth_file/secret");
    return reply;
  }};
  // berthd's stand-in: the ttl of the host's rule (60 without one) in the redirect.
  EdgeUnderTest edge{
      [this](const SeenRequest& request) {
        std::string host = request.header("host");
        int ttl = host.rfind("short.", 0) == 0 ? 2 : host.rfind("zero.", 0) == 0 ? 0 : 60;
        return Reply{200,
                     {{"X-Accel-Redirect", "/_berth_cache/" + std::to_string(ttl) + "/" +
                                               std::to_string(app.port()) + request.target}},
                     ""};
      },
      [](EdgeLayout& layout) {
        // As berthd does: workers that are not root own the cache directory.
        if (::geteuid() == 0) layout.worker_user = "nobody";
        layout.cache_rules = {{"cached.localhost", "k1", 60},
                              {"short.localhost", "k1", 2},
                              {"zero.localhost", "k1", 0}};
      }};
  std::mutex mutex;
  std::map<std::string, int> served;

  int appCount(const std::string& target) {
    std::lock_guard lock(mutex);
    return served[target];
  }
  size_t decisions(const std::string& target) const { return edge.backend.countTarget(target); }
  Response fetch(const std::string& host, const std::string& target,
                 const std::vector<std::string>& headers = {}) {
    return get(edge.port(), host, target, headers);
  }
};

}  // namespace

TEST(EdgeCache, ARepeatIsAHitThatReachesNeitherBerthdNorTheApp) {
  CacheBench b;
  auto first = b.fetch("cached.localhost", "/plain?a=1");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.body, "/plain?a=1 #1");
  EXPECT_EQ(first.headers["x-berth-cache"], "MISS");
  EXPECT_EQ(first.headers.count("x-accel-redirect"), 0u);

  auto second = b.fetch("cached.localhost", "/plain?a=1");
  EXPECT_EQ(second.body, "/plain?a=1 #1");
  EXPECT_EQ(second.headers["x-berth-cache"], "HIT");
  EXPECT_EQ(second.headers["content-type"], "text/plain");
  EXPECT_EQ(b.decisions("/plain?a=1"), 1u) << "the HIT asked berthd";
  EXPECT_EQ(b.appCount("/plain?a=1"), 1);

  // HEAD is answered from the GET's entry.
  auto head = roundTrip(b.edge.port(), requestText("HEAD", "cached.localhost", "/plain?a=1"));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["x-berth-cache"], "HIT");
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(b.decisions("/plain?a=1"), 1u);

  // Another query or another host is another entry.
  auto other_query = b.fetch("cached.localhost", "/plain?a=2");
  EXPECT_EQ(other_query.body, "/plain?a=2 #1");
  EXPECT_EQ(other_query.headers["x-berth-cache"], "MISS");
  auto other_host = b.fetch("short.localhost", "/plain?a=1");
  EXPECT_EQ(other_host.body, "/plain?a=1 #2");
  EXPECT_EQ(other_host.headers["x-berth-cache"], "MISS");
  // The request line's own encoding is the key: one request, one entry.
  EXPECT_EQ(b.fetch("cached.localhost", "/plain?a=2").headers["x-berth-cache"], "HIT");
}

TEST(EdgeCache, AnswersThatForbidItOrSetCookiesAreNeverStored) {
  CacheBench b;
  for (std::string path : {"/nostore", "/private", "/nocache", "/cookie", "/accel"}) {
    for (int i = 1; i <= 2; ++i) {
      auto response = b.fetch("cached.localhost", path);
      EXPECT_EQ(response.status, 200) << path;
      EXPECT_EQ(response.headers["x-berth-cache"], "MISS") << path << " request " << i;
    }
    EXPECT_EQ(b.appCount(path), 2) << path;
    EXPECT_EQ(b.decisions(path), 2u) << path;
  }
  // The app's X-Accel-Redirect was neither followed nor stored for later requests.
  EXPECT_EQ(b.fetch("cached.localhost", "/accel").body, "/accel #3");
  // An app cannot claim a HIT.
  auto claims = b.fetch("cached.localhost", "/claims-hit");
  EXPECT_EQ(claims.headers["x-berth-cache"], "MISS");
  EXPECT_EQ(b.fetch("cached.localhost", "/claims-hit").headers["x-berth-cache"], "HIT");
}

TEST(EdgeCache, RequestsWithCredentialsCookiesOrAScheduleRunAreNeverCached) {
  CacheBench b;
  EXPECT_EQ(b.fetch("cached.localhost", "/plain").headers["x-berth-cache"], "MISS");
  ASSERT_EQ(b.fetch("cached.localhost", "/plain").headers["x-berth-cache"], "HIT");
  for (std::string header :
       {"Authorization: Bearer secret", "Cookie: session=1", "x-berth-schedule: sch_1"}) {
    // Not answered from the cache...
    auto response = b.fetch("cached.localhost", "/plain", {header});
    EXPECT_EQ(response.headers["x-berth-cache"], "MISS") << header;
    // ...nor stored for others.
    std::string target = "/plain?with=" + header.substr(0, header.find(':'));
    EXPECT_EQ(b.fetch("cached.localhost", target, {header}).headers["x-berth-cache"], "MISS");
    EXPECT_EQ(b.fetch("cached.localhost", target).headers["x-berth-cache"], "MISS") << header;
    EXPECT_EQ(b.fetch("cached.localhost", target).headers["x-berth-cache"], "HIT") << header;
  }
  EXPECT_EQ(b.appCount("/plain"), 4);
}

TEST(EdgeCache, HostsWithoutARuleAreNotCached) {
  CacheBench b;
  for (int i = 1; i <= 2; ++i) {
    auto response = b.fetch("norule.localhost", "/plain");
    EXPECT_EQ(response.body, "/plain #" + std::to_string(i));
    EXPECT_EQ(response.headers["x-berth-cache"], "MISS");
  }
  EXPECT_EQ(b.decisions("/plain"), 2u);
}

TEST(EdgeCache, LifetimesComeFromTheAnswerOrElseTheRule) {
  CacheBench b;
  // A rule with ttl 0 keeps only what says how long it may be kept.
  EXPECT_EQ(b.fetch("zero.localhost", "/plain").headers["x-berth-cache"], "MISS");
  EXPECT_EQ(b.fetch("zero.localhost", "/plain").headers["x-berth-cache"], "MISS");
  EXPECT_EQ(b.fetch("zero.localhost", "/maxage60").headers["x-berth-cache"], "MISS");
  EXPECT_EQ(b.fetch("zero.localhost", "/maxage60").headers["x-berth-cache"], "HIT");

  // max-age=1 beats the rule's 60 s; the rule's 2 s applies when the answer is silent.
  EXPECT_EQ(b.fetch("cached.localhost", "/maxage1").body, "/maxage1 #1");
  EXPECT_EQ(b.fetch("short.localhost", "/plain?t").body, "/plain?t #1");
  // Both lifetimes are over: nginx counts whole seconds and keeps an entry through its last
  // second, so a 2 s entry may live just under 3 s.
  std::this_thread::sleep_for(3100ms);
  auto expired = b.fetch("cached.localhost", "/maxage1");
  EXPECT_EQ(expired.body, "/maxage1 #2");
  EXPECT_EQ(expired.headers["x-berth-cache"], "MISS");
  auto silent = b.fetch("short.localhost", "/plain?t");
  EXPECT_EQ(silent.body, "/plain?t #2");
  EXPECT_EQ(silent.headers["x-berth-cache"], "MISS");
  // ...and it was cached in between: a repeat now (well inside 2 s) is the same answer.
  auto again = b.fetch("short.localhost", "/plain?t");
  EXPECT_EQ(again.body, "/plain?t #2");
}

TEST(EdgeCache, ANewKeyIsAFreshCacheAndBurstsOfChangesCostFewReloads) {
  CacheBench b;
  EXPECT_EQ(b.fetch("cached.localhost", "/plain").body, "/plain #1");
  EXPECT_EQ(b.fetch("cached.localhost", "/plain").headers["x-berth-cache"], "HIT");

  int reloads_before = b.edge.edge->reloads();
  pid_t master = b.edge.edge->pid();
  std::vector<pid_t> old_processes = processesInGroup(master);
  for (int i = 0; i < 100; ++i) {
    b.edge.edge->setCacheRules({{"cached.localhost", "k2-" + std::to_string(i), 60},
                                {"short.localhost", "k1", 2},
                                {"zero.localhost", "k1", 0}});
  }
  ASSERT_TRUE(b.edge.edge->settle());
  int reloads = b.edge.edge->reloads() - reloads_before;
  EXPECT_GE(reloads, 1);
  EXPECT_LE(reloads, 20) << "100 changes in a burst were not coalesced";
  std::ifstream config_file(b.edge.edge->configPath());
  std::string config((std::istreambuf_iterator<char>(config_file)), {});
  EXPECT_NE(config.find("\\cached.localhost k2-99;"), std::string::npos);

  // Once only the new workers serve, the old entry is gone for good (the key differs).
  auto old_processes_gone = [&] {
    return eventually([&] {
      auto now = processesInGroup(master);
      return std::none_of(old_processes.begin(), old_processes.end(), [&](pid_t pid) {
        return pid != master && std::find(now.begin(), now.end(), pid) != now.end();
      });
    });
  };
  ASSERT_TRUE(old_processes_gone());
  EXPECT_EQ(b.fetch("cached.localhost", "/plain").body, "/plain #2");
  auto fresh = b.fetch("cached.localhost", "/plain");
  EXPECT_EQ(fresh.headers["x-berth-cache"], "HIT");
  EXPECT_EQ(fresh.body, "/plain #2");

  // Without any rule the cache leaves the config; cache answers are still proxied.
  old_processes = processesInGroup(master);
  b.edge.edge->setCacheRules({});
  ASSERT_TRUE(b.edge.edge->settle());
  ASSERT_TRUE(old_processes_gone());
  auto uncached = b.fetch("cached.localhost", "/plain");
  EXPECT_EQ(uncached.headers["x-berth-cache"], "MISS");
  EXPECT_EQ(uncached.body, "/plain #3");
  EXPECT_EQ(b.fetch("cached.localhost", "/plain").body, "/plain #4");
}

TEST(EdgeCache, RefusedRulesKeepTheCurrentConfiguration) {
  CacheBench b;
  std::ifstream before_file(b.edge.edge->configPath());
  std::string before((std::istreambuf_iterator<char>(before_file)), {});
  int reloads = b.edge.edge->reloads();
  b.edge.edge->setCacheRules({{"cached.localhost", "a;b", 60}});
  ASSERT_TRUE(b.edge.edge->settle());
  std::ifstream after_file(b.edge.edge->configPath());
  std::string after((std::istreambuf_iterator<char>(after_file)), {});
  EXPECT_EQ(before, after);
  EXPECT_EQ(b.edge.edge->reloads(), reloads);
}

TEST(Edge, MalformedUrlsAreAnsweredJson400ByNginx) {
  EdgeUnderTest t;
  for (std::string host : {"api.localhost", "shop.localhost"}) {
    auto response = get(t.port(), host, "/a%00b");
    EXPECT_EQ(response.status, 400) << host;
    EXPECT_EQ(response.headers["content-type"], "application/json");
    EXPECT_EQ(response.bodyJson()["error"],
              "the request is malformed: its URL or headers cannot be read")
        << response.body;
  }
  EXPECT_EQ(t.backend.countTarget("/a%00b"), 0u);
}

// An app route: the edge proxies the host's requests straight to the app (berthd not asked),
// with method, body and X-Forwarded-*; berthd's own project routes and a schedule's run still
// reach berthd; an app that does not answer sends the request to berthd.
TEST(Edge, AppRoutesGoStraightToTheAppAndFallBackToBerthd) {
  TestBackend app;
  const uint16_t dead_port = freeLoopbackPort();  // nothing listens there
  EdgeUnderTest t(
      [](const SeenRequest&) {
        return Reply{200, {}, "from berthd"};
      },
      [&](EdgeLayout& layout) {
        layout.app_rules = {{"foo-abcd.localhost", app.port()}, {"gone-abcd.localhost", dead_port}};
        layout.project_route_prefixes = {"/_files/"};
      });
  std::string body = randomBytes(100000, 7);
  auto response = roundTrip(t.port(), requestText("POST", "foo-abcd.localhost", "/x/y?a=1&b=2",
                                                  body, {"Content-Type: text/plain"}));
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.headers["x-berth-cache"], "MISS");
  auto seen = app.seen();
  ASSERT_EQ(seen.size(), 1u);
  expectTheClientsPost(seen[0], body);
  EXPECT_TRUE(t.backend.seen().empty());

  EXPECT_EQ(get(t.port(), "foo-abcd.localhost", "/_files/a.txt").body, "from berthd");
  EXPECT_EQ(get(t.port(), "foo-abcd.localhost", "/", {"x-berth-schedule: s1"}).body, "from berthd");
  EXPECT_EQ(t.backend.seen().size(), 2u);
  EXPECT_EQ(app.seen().size(), 1u);

  auto fallback = get(t.port(), "gone-abcd.localhost", "/wake?x=1");
  EXPECT_EQ(fallback.status, 200);
  EXPECT_EQ(fallback.body, "from berthd");
  ASSERT_EQ(t.backend.seen().size(), 3u);
  EXPECT_EQ(t.backend.seen().back().header("x-berth-uri"), "/wake?x=1");
}
