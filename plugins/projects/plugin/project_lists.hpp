// Each account's ready projects, kept in memory for GET /projects: reading them, with the other
// plugins' parts of the answer, was the route's whole cost in the database. Kept as
// <berth/util/kept_answers.hpp> keeps answers: migration 0002's triggers send NOTIFY berth_projects
// with the account's id when one of its project rows changes, from any node (the core listens
// and hands it over as a hook); the routes that change a project here drop its account's list
// at once (ListChange).
#pragma once
#include <berth/util/kept_answers.hpp>

#include <string>
#include <vector>

#include "project_record.hpp"

namespace berth::projects {

class ProjectLists {
 public:
  // Hooks the core's notifications on berth_projects (registerAll); nothing is kept until the
  // core listens.
  void listen(berth::Registrar& r) { kept_.listen(r); }
  void stop() { kept_.stop(); }

  // Every ready project of these accounts, sorted by name byte by byte, whatever the
  // database's collation.
  std::vector<ProjectRecord> readyProjectsOf(const berth::Db& db,
                                             const std::vector<std::string>& account_ids);
  void changed(const std::string& account_id) { kept_.changed(account_id); }

 private:
  berth::KeptAnswers<std::vector<ProjectRecord>> kept_{"berth_projects"};
};

// Drops the account's kept list when it goes, whichever way the route that changes a project
// ends (a failed step may already have changed the row).
class ListChange {
 public:
  ListChange(ProjectLists& lists, std::string account_id)
      : lists_(lists), account_id_(std::move(account_id)) {}
  ~ListChange() { lists_.changed(account_id_); }
  ListChange(const ListChange&) = delete;
  ListChange& operator=(const ListChange&) = delete;

 private:
  ProjectLists& lists_;
  std::string account_id_;
};

}  // namespace berth::projects
