// Connections to projects' own databases, as each project's own role (never a superuser), kept
// open between requests. The URL comes from the projects plugin (projects.directory.v1
// `database`), so this plugin never sees a superuser password.
#pragma once
#include <berth/plugin.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pg_session.hpp"

namespace berth::sqlconsole {

class ProjectConnections {
 public:
  // session_options: server settings every connection starts with (they are what RESET ALL and
  // DISCARD ALL return to), e.g. statement_timeout.
  ProjectConnections(const berth::Services& services, size_t idle_per_project,
                     std::vector<std::pair<std::string, std::string>> session_options);

  // A connection on loan to one request. Returned on destruction: kept for the next request
  // when it is healthy and idle, closed otherwise. A route that let the user change session
  // state (SET ..., /query, /batch, /import) calls dirty(): DISCARD ALL runs before reuse.
  class Lease {
   public:
    Lease(ProjectConnections* owner, std::string project_id, PgSession session);
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    PgSession& operator*() { return session_; }
    PgSession* operator->() { return &session_; }
    void dirty() { dirty_ = true; }
    // Close instead of keeping (after an error that may have left the session unusable).
    void discard() { discard_ = true; }

   private:
    ProjectConnections* owner_;
    std::string project_id_;
    PgSession session_;
    bool dirty_ = false;
    bool discard_ = false;
  };

  // Throws berth::Error 503 "could not reach the project's database" when it cannot connect.
  Lease lease(const std::string& project_id);
  // An idle connection of the project's, or nothing (never connects: for a core thread).
  std::optional<Lease> idleLease(const std::string& project_id);

  // Closes the project's idle connections and forgets its URL (project.deleting/deleted).
  void forget(const std::string& project_id);
  // Closes every connection that has been idle for longer than `longest` (a job calls it), so
  // that the projects nobody uses now hold no connection of PostgreSQL's limited number.
  // Answers how many it closed.
  size_t closeIdleLongerThan(std::chrono::steady_clock::duration longest);

  // Called with a project's id when its database could not be reached (a connection failed to
  // open, or a leased one was discarded after a connection error): the project may be gone.
  void onUnreachable(std::function<void(const std::string&)> callback) {
    on_unreachable_ = std::move(callback);
  }

 private:
  friend class Lease;
  void giveBack(const std::string& project_id, PgSession session);
  std::string urlOf(const std::string& project_id);

  const berth::Services& services_;
  size_t idle_per_project_;
  std::vector<std::pair<std::string, std::string>> session_options_;
  std::mutex mutex_;
  std::map<std::string, std::string> urls_;
  struct Idle {
    PgSession session;
    std::chrono::steady_clock::time_point since;
  };
  // Per project, oldest first: a lease takes the newest, so the ones left over age out.
  std::map<std::string, std::vector<Idle>> idle_;
  std::function<void(const std::string&)> on_unreachable_;
};

}  // namespace berth::sqlconsole
