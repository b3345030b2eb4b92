#include "project_routes.hpp"

#include <set>

#include "access.hpp"
#include "creation_throttle.hpp"
#include "domain_routes.hpp"
#include "half_made.hpp"
#include "names.hpp"
#include "project_settings.hpp"
#include "project_view.hpp"
#include "random_text.hpp"
#include "regions.hpp"

namespace berth::projects {

namespace {

using berth::Error;
using berth::FieldType;
using berth::Request;
using berth::Responder;

std::set<std::string> labelsOf(const berth::Db& db, const std::string& account_id) {
  std::set<std::string> labels;
  auto r = db.exec("SELECT label FROM projects.projects WHERE account_id = $1", account_id);
  for (int64_t i = 0; i < r.rows(); ++i) labels.insert(r.get<std::string>(i, 0));
  return labels;
}

// 24 characters of [a-z0-9]: the database and role are named p_<id>.
std::string newProjectId() {
  return randomLowerAlnum(24);
}

// The account a new project goes to: the caller's own, or the named team's.
const berth::Account& targetAccount(const Access& access, const nlohmann::json& body) {
  if (body.contains("team") && body["team"].is_string() &&
      !body["team"].get<std::string>().empty()) {
    std::string slug = body["team"];
    const berth::Account* team = access.team(slug);
    if (!team) throw Error::notFound("no team called " + slug);
    return *team;
  }
  return access.own();
}

class ProjectHandlers {
 public:
  explicit ProjectHandlers(const Context& context) : c_(context) {}

  void list(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto projects = c_.lists.readyProjectsOf(c_.db(), access.accountIds());
    resp.bytes(200, "application/json", projectListJson(c_, projects, access));
  }

  void get(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    resp.bytes(200, "application/json",
               projectViewJson(c_, project, access.account(project.account_id)));
  }

  void available(const Request& req, Responder& resp) const {
    auto raw = req.queryParam("name");
    if (!raw) throw Error::badRequest("the name parameter is required");
    Access access(c_, req);
    const berth::Account* account = &access.own();
    if (auto team = req.queryParam("team"); team && !team->empty()) {
      account = access.team(*team);
      if (!account) throw Error::notFound("no team called " + *team);
    }
    NameCheck check = checkName(*raw, account->slug, c_.settings.reserved_names);
    if (!check.ok) {
      resp.json(200, {{"available", false}, {"problem", check.problem}});
      return;
    }
    auto taken = labelsOf(c_.db(), account->id);
    bool free = !taken.count(check.label);
    std::string suggestion =
        free ? check.label
             : suggestFreeName(check.label, account->slug, taken, c_.settings.reserved_names);
    resp.json(200, {{"available", free},
                    {"suggestion", suggestion},
                    {"host", c_.hostOf(suggestion + "-" + account->slug)}});
  }

  void suggest(const Request& req, Responder& resp) const {
    Access access(c_, req);
    const berth::Account& own = access.own();
    resp.json(200, {{"name", generateName(own.slug, labelsOf(c_.db(), own.id))}});
  }

  void create(const Request& req, Responder& resp) const {
    Access access(c_, req);
    const nlohmann::json& body = req.json();
    const berth::Account& account = targetAccount(access, body);
    NameCheck check =
        checkName(body.at("name").get<std::string>(), account.slug, c_.settings.reserved_names);
    if (!check.ok) throw Error::badRequest(check.problem);
    const std::string name = check.label + "-" + account.slug;
    const std::string id = newProjectId();
    CreationUnderWay under_way(id);

    // The name check, the plan limit and the insert happen under one lock per account, so
    // two requests at once cannot both take the last project of a plan, or the same name.
    c_.db().transaction([&](berth::Transaction& tx) {
      tx.exec("SELECT pg_advisory_xact_lock(hashtext('projects:create:' || $1))", account.id);
      auto same_name =
          tx.exec("SELECT id, status, made_by FROM projects.projects WHERE name = $1", name);
      // An earlier creation of this name that this berthd abandoned is undone first (its undo
      // could not run then), so the name is free again at once.
      if (same_name.rows() > 0 && same_name.get<std::string>(0, 1) == "creating" &&
          abandonedHere(c_, same_name.get<std::string>(0, 0), same_name.get<std::string>(0, 2))) {
        c_.logger().withProject(name).warn("removed an earlier creation of it that had failed");
        undoHalfCreated(c_, same_name.get<std::string>(0, 0));
        same_name = tx.exec("SELECT id FROM projects.projects WHERE name = $1", name);
      }
      if (same_name.rows() > 0) {
        auto taken = labelsOf(c_.db(), account.id);
        taken.insert(check.label);
        throw Error::conflict("you already have a project called " + check.label,
                              {{"suggestion", suggestFreeName(check.label, account.slug, taken,
                                                              c_.settings.reserved_names)}});
      }
      auto limit = c_.services->planProjectLimit(account.plan);
      if (limit) {
        int64_t count =
            tx.exec("SELECT count(*) FROM projects.projects WHERE account_id = $1", account.id)
                .get<int64_t>(0, 0);
        if (count >= *limit)
          throw Error::forbidden("your plan (" + account.plan + ") allows " +
                                 std::to_string(*limit) +
                                 " projects; delete one or move to a larger plan");
      }
      berth::Db db = c_.db();
      ThrottleDecision throttle = takeCreationToken(db, account.id, c_.settings.creation_burst,
                                                    c_.settings.creation_refill_seconds);
      if (!throttle.allowed)
        throw Error::tooManyRequests(
            "Projects are being created too quickly on this account. Wait a moment and try "
            "again.")
            .withHeader("Retry-After", std::to_string(throttle.retry_after_seconds));
      // Listed only once its database exists (status 'ready').
      tx.exec(
          "INSERT INTO projects.projects (id, name, label, account_id, status, made_by) "
          "VALUES ($1, $2, $3, $4, 'creating', $5)",
          id, name, check.label, account.id, thisBerthd(c_));
    });

    ListChange listed(c_.lists, account.id);
    core_tenant_databases::Database database;
    try {
      database = c_.databases->create(id);
    } catch (const std::exception& e) {
      c_.db().exec("DELETE FROM projects.projects WHERE id = $1", id);
      c_.logger().withProject(name).error(std::string("database not created: ") + e.what());
      throw Error::internal("could not create the project's database");
    }
    try {
      c_.db().exec(
          "UPDATE projects.projects SET db_name = $2, db_role = $3, db_password = $4, "
          "status = 'ready', status_changed_at = extract(epoch FROM now())::bigint WHERE id = $1",
          id, database.database, database.role, c_.vault->seal(database.password, id));
    } catch (...) {
      c_.databases->drop(database.database, database.role);
      c_.db().exec("DELETE FROM projects.projects WHERE id = $1", id);
      throw;
    }
    c_.logger().withProject(name).info(req, "project created in account " + account.slug);
    auto project = findReadyProjectById(c_.db(), id);
    if (!project) throw Error::internal("the project vanished while it was made");
    fireQuietly(c_, "project.created", *project);
    resp.bytes(201, "application/json", projectViewJson(c_, *project, &account));
  }

  void patch(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    const nlohmann::json& body = req.json();
    SettingsChange change;
    auto given = [&](const char* field) { return body.contains(field) && !body[field].is_null(); };
    if (given("region")) change.region = body["region"].get<std::string>();
    if (given("cmd")) change.cmd = body["cmd"].get<std::string>();
    if (given("cache_ttl")) change.cache_ttl = body["cache_ttl"].get<int64_t>();
    if (given("ignore_dockerfile"))
      change.ignore_dockerfile = body["ignore_dockerfile"].get<bool>();
    if (given("cache_enabled")) change.cache_enabled = body["cache_enabled"].get<bool>();
    project = changeSettings(c_, std::move(project), change);
    resp.bytes(
        200, "application/json",
        projectViewJson(c_, project, access.account(project.account_id), {.zero_files = true}));
  }

  void remove(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    if (!access.canManage(project))
      throw Error::forbidden("only the owner or an admin of this project's account can delete it");
    // Unlisted first, so that no crash from here on leaves a listed project with parts of it
    // gone: a 'deleting' row is finished by the next start (half_made.hpp).
    ListChange listed(c_.lists, project.account_id);
    c_.db().exec(
        "UPDATE projects.projects SET status = 'deleting', made_by = $2, "
        "status_changed_at = extract(epoch FROM now())::bigint WHERE id = $1",
        project.id, thisBerthd(c_));
    // Other plugins remove what they keep for the project; a refusal (object storage did not
    // confirm) puts the project back, so the request can be repeated.
    try {
      c_.services->fire("project.deleting", projectEventPayload(project));
    } catch (...) {
      c_.db().exec("UPDATE projects.projects SET status = 'ready' WHERE id = $1", project.id);
      throw;
    }
    try {
      c_.databases->drop(project.db_name, project.db_role);
    } catch (const std::exception& e) {
      c_.db().exec("UPDATE projects.projects SET status = 'ready' WHERE id = $1", project.id);
      c_.logger().withProject(project.name).error(std::string("database not dropped: ") + e.what());
      throw Error::internal("could not remove the project's database; try again");
    }
    bool had_domains =
        c_.db()
            .exec("SELECT 1 FROM projects.domains WHERE project_id = $1 AND verified", project.id)
            .rows() > 0;
    c_.db().exec("DELETE FROM projects.projects WHERE id = $1", project.id);
    if (had_domains) publishCustomHosts(c_);
    c_.logger().withProject(project.name).info(req, "project deleted");
    fireQuietly(c_, "project.deleted", project);
    resp.noContent();
  }

 private:
  const Context& c_;
};

}  // namespace

void registerProjectRoutes(berth::Registrar& r, const Context& context) {
  auto h = std::make_shared<ProjectHandlers>(context);
  berth::RouteOptions open;
  open.publicRoute = true;
  // The list never changes while berthd runs: serialised once, not on every request.
  auto regions = std::make_shared<const std::string>(regionsJson().dump());
  r.get(
      "/regions",
      [regions](const Request&, Responder& resp) { resp.bytes(200, "application/json", *regions); },
      open);
  r.get("/projects", [h](const Request& q, Responder& s) { h->list(q, s); });
  berth::RouteOptions create;
  create.fields = {{"name", FieldType::String, true}, {"team", FieldType::String, false}};
  r.post(
      "/projects", [h](const Request& q, Responder& s) { h->create(q, s); }, create);
  r.get("/projects/available", [h](const Request& q, Responder& s) { h->available(q, s); });
  r.get("/projects/suggest", [h](const Request& q, Responder& s) { h->suggest(q, s); });
  r.get("/projects/:name", [h](const Request& q, Responder& s) { h->get(q, s); });
  berth::RouteOptions patch;
  patch.fields = {{"region", FieldType::String, false},
                  {"cmd", FieldType::String, false},
                  {"ignore_dockerfile", FieldType::Bool, false},
                  {"cache_enabled", FieldType::Bool, false},
                  {"cache_ttl", FieldType::Int, false}};
  r.patch(
      "/projects/:name", [h](const Request& q, Responder& s) { h->patch(q, s); }, patch);
  r.del("/projects/:name", [h](const Request& q, Responder& s) { h->remove(q, s); });
}

}  // namespace berth::projects
