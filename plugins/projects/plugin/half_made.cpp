#include "half_made.hpp"

#include <unistd.h>

#include <mutex>
#include <set>

#include "project_record.hpp"
#include "project_settings.hpp"
#include "random_text.hpp"

namespace berth::projects {

namespace {

std::string thisNode(const Context& c) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + ":" + c.services->coreSetting("data_dir").value_or("") + ":";
}

std::mutex under_way_mutex;
std::set<std::string> under_way;

}  // namespace

CreationUnderWay::CreationUnderWay(std::string id) : id_(std::move(id)) {
  std::lock_guard lock(under_way_mutex);
  under_way.insert(id_);
}

CreationUnderWay::~CreationUnderWay() {
  std::lock_guard lock(under_way_mutex);
  under_way.erase(id_);
}

bool abandonedHere(const Context& c, const std::string& id, const std::string& made_by) {
  if (made_by != thisBerthd(c)) return false;
  std::lock_guard lock(under_way_mutex);
  return under_way.count(id) == 0;
}

void undoHalfCreated(const Context& c, const std::string& id) {
  c.databases->drop("p_" + id, "p_" + id);
  c.db().exec("DELETE FROM projects.projects WHERE id = $1", id);
}

std::string thisBerthd(const Context& c) {
  static const std::string boot = randomHexKey(8);
  return thisNode(c) + boot;
}

void finishHalfMade(const Context& c) {
  const std::string node = thisNode(c);
  auto rows = c.db().exec(std::string("SELECT ") + kProjectColumns +
                              " FROM projects.projects WHERE status <> 'ready' AND ("
                              "(starts_with(made_by, $1::text) AND made_by <> $2::text) "
                              "OR status_changed_at < extract(epoch FROM now())::bigint - 600)",
                          node, thisBerthd(c));
  for (const ProjectRecord& p : projectsFrom(rows)) {
    auto log = c.logger().withProject(p.name);
    try {
      ListChange listed(c.lists, p.account_id);
      if (p.status == "deleting") c.services->fire("project.deleting", projectEventPayload(p));
      undoHalfCreated(c, p.id);
      if (p.status == "deleting") {
        fireQuietly(c, "project.deleted", p);
        log.warn("finished deleting a project an earlier berthd left half-deleted");
      } else {
        log.warn("removed a project an earlier berthd left half-created");
      }
    } catch (const std::exception& e) {
      log.warn(std::string("could not finish a half-made project yet: ") + e.what());
    }
  }
}

}  // namespace berth::projects
