#include "auth/auth_cache.hpp"

#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <memory>

#include "auth/accounts.hpp"
#include "log/logging.hpp"

namespace berth::core {

namespace {

// Caches are small: a bound keeps a flood of distinct valid tokens from growing it forever.
constexpr size_t kMaxEntries = 100000;

struct ConnFree {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};

}  // namespace

AuthCache::AuthCache(std::string database_url, std::chrono::seconds max_age)
    : url_(std::move(database_url)), max_age_(max_age.count()) {
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) stop_pipe_[0] = stop_pipe_[1] = -1;
}

AuthCache::~AuthCache() {
  stopping_ = true;
  if (stop_pipe_[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(stop_pipe_[1], &byte, 1);
  }
  wake_.notify_all();
  if (listener_.joinable()) listener_.join();
  for (int fd : stop_pipe_)
    if (fd >= 0) ::close(fd);
}

void AuthCache::start() {
  if (stop_pipe_[0] < 0 || listener_.joinable()) return;
  listener_ = std::thread([this] { listenLoop(); });
}

std::optional<Caller> AuthCache::token(const std::string& digest, int64_t now) {
  if (!listening_) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = tokens_.find(digest);
  if (it == tokens_.end()) return std::nullopt;
  const Token& t = it->second;
  if ((t.expires_at && *t.expires_at <= now) || now - t.checked_at >= max_age_) {
    tokens_.erase(it);
    return std::nullopt;
  }
  return t.caller;
}

void AuthCache::putToken(const std::string& digest, Token token, uint64_t generation) {
  if (!listening_) return;
  std::lock_guard lock(mutex_);
  if (generation != generation_.load()) return;
  if (tokens_.size() >= kMaxEntries) tokens_.clear();
  tokens_[digest] = std::move(token);
}

std::optional<std::vector<Account>> AuthCache::memberships(const std::string& user_id) {
  if (!listening_) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto it = memberships_.find(user_id);
  if (it == memberships_.end()) return std::nullopt;
  return it->second;
}

void AuthCache::putMemberships(const std::string& user_id, std::vector<Account> accounts,
                               uint64_t generation) {
  if (!listening_) return;
  std::lock_guard lock(mutex_);
  if (generation != generation_.load()) return;
  if (memberships_.size() >= kMaxEntries) memberships_.clear();
  memberships_[user_id] = std::move(accounts);
}

void AuthCache::clear() {
  std::lock_guard lock(mutex_);
  ++generation_;
  tokens_.clear();
  memberships_.clear();
}

void AuthCache::listenLoop() {
  auto log = getLogger("core");
  bool warned = false;
  while (!stopping_) {
    std::unique_ptr<PGconn, ConnFree> conn(PQconnectdb(url_.c_str()));
    bool ok = conn && PQstatus(conn.get()) == CONNECTION_OK;
    if (ok) {
      PGresult* r = PQexec(conn.get(), (std::string("LISTEN ") + kAuthChannel).c_str());
      ok = PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
    }
    if (ok) {
      // Anything may have changed while nobody listened.
      clear();
      listening_ = true;
      warned = false;
      int socket = PQsocket(conn.get());
      while (!stopping_) {
        pollfd fds[2] = {{socket, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        int ready = ::poll(fds, 2, 30000);
        if (ready < 0 && errno != EINTR) break;
        if (stopping_) break;
        if (ready == 0) {  // quiet: make sure the connection is still there
          PGresult* r = PQexec(conn.get(), "SELECT 1");
          bool alive = PQresultStatus(r) == PGRES_TUPLES_OK;
          PQclear(r);
          if (!alive) break;
        }
        if (!PQconsumeInput(conn.get())) break;
        bool changed = false;
        while (PGnotify* n = PQnotifies(conn.get())) {
          changed = true;
          PQfreemem(n);
        }
        if (changed) clear();
        if (PQstatus(conn.get()) != CONNECTION_OK) break;
      }
      listening_ = false;
      clear();
    } else if (!warned) {
      logLine(*log, spdlog::level::warn, "", "",
              "auth cache off: cannot listen for account changes; every request asks the "
              "database");
      warned = true;
    }
    std::unique_lock lock(wake_mutex_);
    wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_.load(); });
  }
}

}  // namespace berth::core
