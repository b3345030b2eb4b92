#include "data_api_grants.hpp"

#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>

namespace berth::sqlconsole {
namespace {

constexpr const char* kChannel = "berth_data_api";

struct ConnFinish {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};

bool command(PGconn* conn, const char* sql, ExecStatusType expected) {
  PGresult* r = PQexec(conn, sql);
  bool ok = PQresultStatus(r) == expected;
  PQclear(r);
  return ok;
}

}  // namespace

DataApiGrants::~DataApiGrants() {
  stop();
}

void DataApiGrants::start(std::string database_url, berth::Logger logger) {
  url_ = std::move(database_url);
  logger_ = std::move(logger);
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    logger_.warn("data API settings are read on every request: no pipe to stop a listener");
    return;
  }
  thread_ = std::thread([this] { listenLoop(); });
}

void DataApiGrants::stop() {
  stopping_ = true;
  if (stop_pipe_[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t ignored = ::write(stop_pipe_[1], &byte, 1);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (int& fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

DataApiGrant DataApiGrants::get(const berth::Db& db, const std::string& project_id) {
  uint64_t generation = 0;
  if (listening_) {
    std::lock_guard lock(mutex_);
    auto it = kept_.find(project_id);
    if (it != kept_.end()) return it->second;
    generation = generation_;
  }
  DataApiGrant grant = loadDataApiGrant(db, project_id);
  if (listening_) {
    std::lock_guard lock(mutex_);
    // A change since the read began may not be in it: keep nothing rather than an old answer.
    if (generation == generation_ && listening_) {
      if (kept_.size() >= kMaxEntries) kept_.clear();
      kept_[project_id] = grant;
    }
  }
  return grant;
}

void DataApiGrants::changed(const std::string& project_id) {
  std::lock_guard lock(mutex_);
  ++generation_;
  kept_.erase(project_id);
}

void DataApiGrants::dropAll() {
  std::lock_guard lock(mutex_);
  ++generation_;
  kept_.clear();
}

void DataApiGrants::listenLoop() {
  bool warned = false;
  while (!stopping_) {
    std::unique_ptr<PGconn, ConnFinish> conn(PQconnectdb(url_.c_str()));
    bool ok = conn && PQstatus(conn.get()) == CONNECTION_OK &&
              command(conn.get(), (std::string("LISTEN ") + kChannel).c_str(), PGRES_COMMAND_OK);
    if (ok) {
      dropAll();  // anything may have changed while nobody listened
      listening_ = true;
      warned = false;
      const int socket = PQsocket(conn.get());
      while (!stopping_) {
        pollfd fds[2] = {{socket, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        int ready = ::poll(fds, 2, 30000);
        if (ready < 0 && errno != EINTR) break;
        if (stopping_) break;
        // Quiet for 30 s: make sure the connection is still there.
        if (ready == 0 && !command(conn.get(), "SELECT 1", PGRES_TUPLES_OK)) break;
        if (!PQconsumeInput(conn.get())) break;
        while (PGnotify* n = PQnotifies(conn.get())) {
          std::string project_id = n->extra != nullptr ? n->extra : "*";
          PQfreemem(n);
          if (project_id == "*")
            dropAll();
          else
            changed(project_id);
        }
        if (PQstatus(conn.get()) != CONNECTION_OK) break;
      }
      listening_ = false;
      dropAll();
    } else if (!warned) {
      logger_.warn(
          "data API settings are read on every request: cannot listen for their changes on the "
          "control-plane database");
      warned = true;
    }
    std::unique_lock lock(wake_mutex_);
    wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_.load(); });
  }
}

}  // namespace berth::sqlconsole
