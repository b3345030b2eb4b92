#include "domain_routes.hpp"

#include <mutex>

#include "access.hpp"
#include "dns_txt.hpp"
#include "domain_rules.hpp"
#include "random_text.hpp"

namespace berth::projects {

namespace {

using berth::Error;
using berth::FieldType;
using berth::Request;
using berth::Responder;

class DomainHandlers {
 public:
  explicit DomainHandlers(const Context& context) : c_(context) {}

  // A claim blocks nobody until it is verified: any number of projects may claim a host
  // that no project has verified. The same project twice, or a host verified elsewhere, is
  // 409. Expired claims of the host are dropped first, so they never count.
  void add(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    std::string host = normaliseHost(req.json().at("host").get<std::string>());
    if (auto problem = hostProblem(host, c_.settings.apps_domain))
      throw Error::badRequest(*problem);
    const std::string clash = "the domain " + host + " is already on a project";
    try {
      c_.db().transaction([&](berth::Transaction& tx) {
        lockHost(tx, host);
        tx.exec("DELETE FROM projects.domains WHERE host = $1 AND NOT verified AND created_at < $2",
                host, claimCutoff());
        if (tx.exec("SELECT 1 FROM projects.domains WHERE host = $1 AND (verified OR "
                    "project_id = $2)",
                    host, project.id)
                .rows() > 0)
          throw Error::conflict(clash);
        tx.exec(
            "INSERT INTO projects.domains (host, project_id, token, created_at) "
            "VALUES ($1, $2, $3, $4)",
            host, project.id, randomLowerAlnum(32), nowSeconds());
      });
    } catch (const berth::DbError& e) {
      if (e.isUniqueViolation()) throw Error::conflict(clash);
      throw;
    }
    resp.json(201, view(project, host));
  }

  void list(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    // One query: a domain removed while the list is read is simply not in it (a second query
    // per host would find it gone and fail the whole list).
    auto r = c_.db().exec(
        "SELECT host, token, verified, created_at, verified_at FROM projects.domains "
        "WHERE project_id = $1 AND (verified OR created_at >= $2) ORDER BY host",
        project.id, claimCutoff());
    nlohmann::json domains = nlohmann::json::array();
    for (int64_t i = 0; i < r.rows(); ++i) domains.push_back(viewOfRow(project, r, i));
    resp.json(200, {{"domains", domains}});
  }

  void verify(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    std::string host = normaliseHost(req.param("host"));
    auto token = tokenOf(project, host);
    std::string expected = "berth-verify=" + token;
    std::string record = "_berth." + host;
    std::vector<std::string> found;
    try {
      found = lookupTxt(record, c_.settings.dns_resolver);
    } catch (const DnsError& e) {
      throw Error::badGateway(std::string("could not ask DNS: ") + e.what());
    }
    bool match = false;
    for (const auto& value : found) match = match || value == expected;
    if (!match) {
      if (found.empty())
        throw Error::badRequest("no TXT record found at " + record + "; publish " + expected +
                                " there");
      throw Error::badRequest("the TXT record at " + record + " says \"" + found.front() +
                              "\", expected \"" + expected + "\"");
    }
    // The first project to verify owns the host: its claim is marked and every other claim
    // of the host dropped in one transaction, under the host's lock (and the unique index on
    // verified hosts), so two verifications at once cannot both win.
    std::vector<std::string> dropped;
    c_.db().transaction([&](berth::Transaction& tx) {
      lockHost(tx, host);
      if (tx.exec("SELECT 1 FROM projects.domains WHERE host = $1 AND verified AND "
                  "project_id <> $2",
                  host, project.id)
              .rows() > 0)
        throw Error::conflict("the domain " + host + " is already on a project");
      auto marked = tx.exec(
          "UPDATE projects.domains SET verified = true, verified_at = coalesce(verified_at, $3) "
          "WHERE host = $1 AND project_id = $2 AND token = $4 AND (verified OR created_at >= $5) "
          "RETURNING 1",
          host, project.id, nowSeconds(), token, claimCutoff());
      if (marked.rows() == 0) throw Error::notFound("no domain called " + host);
      auto others = tx.exec(
          "DELETE FROM projects.domains WHERE host = $1 AND project_id <> $2 RETURNING project_id",
          host, project.id);
      for (int64_t i = 0; i < others.rows(); ++i) dropped.push_back(others.get<std::string>(i, 0));
    });
    publishCustomHosts(c_);
    domainsChanged(project, host);
    c_.logger()
        .withProject(project.name)
        .info(req, "domain " + host + " verified" +
                       (dropped.empty() ? std::string()
                                        : "; the claims of " + std::to_string(dropped.size()) +
                                              " other projects were dropped"));
    resp.json(200, view(project, host));
  }

  void remove(const Request& req, Responder& resp) const {
    Access access(c_, req);
    auto project = access.project(req.param("name"));
    std::string host = normaliseHost(req.param("host"));
    // An expired claim goes too, but answers as one that is not there.
    auto r = c_.db().exec(
        "DELETE FROM projects.domains WHERE host = $1 AND project_id = $2 "
        "RETURNING verified, created_at",
        host, project.id);
    if (r.rows() == 0 || (!r.get<bool>(0, 0) && r.get<int64_t>(0, 1) < claimCutoff()))
      throw Error::notFound("no domain called " + host);
    if (r.get<bool>(0, 0)) {
      publishCustomHosts(c_);
      domainsChanged(project, host);
    }
    resp.noContent();
  }

 private:
  // Serialises claims and verifications of one host across nodes (until the commit).
  static void lockHost(berth::Transaction& tx, const std::string& host) {
    tx.exec("SELECT pg_advisory_xact_lock(hashtext('projects:domain:' || $1))", host);
  }

  int64_t claimCutoff() const { return domainClaimCutoff(c_); }

  // Plugins that keep something per host (the storage plugin's edge tree) drop it; a failing
  // listener is its own problem, not the domain change's.
  void domainsChanged(const ProjectRecord& project, const std::string& host) const {
    try {
      c_.services->fire("project.domains_changed",
                        {{"id", project.id}, {"name", project.name}, {"host", host}});
    } catch (const std::exception& e) {
      c_.logger()
          .withProject(project.name)
          .warn(std::string("project.domains_changed: ") + e.what());
    }
  }

  std::string tokenOf(const ProjectRecord& project, const std::string& host) const {
    auto r = c_.db().exec(
        "SELECT token FROM projects.domains WHERE host = $1 AND project_id = $2 AND (verified OR "
        "created_at >= $3)",
        host, project.id, claimCutoff());
    if (r.rows() == 0) throw Error::notFound("no domain called " + host);
    return r.get<std::string>(0, 0);
  }

  nlohmann::json view(const ProjectRecord& project, const std::string& host) const {
    auto r = c_.db().exec(
        "SELECT host, token, verified, created_at, verified_at FROM projects.domains "
        "WHERE host = $1 AND project_id = $2",
        host, project.id);
    if (r.rows() == 0) throw Error::notFound("no domain called " + host);
    return viewOfRow(project, r, 0);
  }

  // Row i of (host, token, verified, created_at, verified_at).
  nlohmann::json viewOfRow(const ProjectRecord& project, const berth::DbResult& r,
                           int64_t i) const {
    const auto host = r.get<std::string>(i, 0);
    const auto verified_at = r.get<std::optional<int64_t>>(i, 4);
    return {{"host", host},
            {"verified", r.get<bool>(i, 2)},
            {"records",
             {{{"type", "TXT"},
               {"name", "_berth." + host},
               {"value", "berth-verify=" + r.get<std::string>(i, 1)}},
              {{"type", "CNAME"}, {"name", host}, {"value", c_.hostOf(project.name)}}}},
            {"created_at", r.get<int64_t>(i, 3)},
            {"verified_at", verified_at ? nlohmann::json(*verified_at) : nlohmann::json()}};
  }

  const Context& c_;
};

}  // namespace

int64_t domainClaimCutoff(const Context& context) {
  return nowSeconds() - context.settings.domain_claim_days * 86400;
}

int64_t removeExpiredDomainClaims(const Context& context) {
  return context.db()
      .exec("DELETE FROM projects.domains WHERE NOT verified AND created_at < $1",
            domainClaimCutoff(context))
      .affected();
}

void publishCustomHosts(const Context& context) {
  // Routes, the jobs and the NOTIFY job publish from several threads: one at a time, so the
  // list read last is the one the core keeps.
  static std::mutex publishing;
  std::lock_guard lock(publishing);
  auto r = context.db().exec(
      "SELECT d.host FROM projects.domains d JOIN projects.projects p ON p.id = d.project_id "
      "WHERE d.verified AND p.status = 'ready' ORDER BY d.host");
  std::vector<std::string> hosts;
  for (int64_t i = 0; i < r.rows(); ++i) hosts.push_back(r.get<std::string>(i, 0));
  context.services->setCustomHosts(hosts);
}

void registerDomainRoutes(berth::Registrar& r, const Context& context) {
  auto h = std::make_shared<DomainHandlers>(context);
  berth::RouteOptions add;
  add.fields = {{"host", FieldType::String, true}};
  r.post(
      "/projects/:name/domains", [h](const Request& q, Responder& s) { h->add(q, s); }, add);
  r.get("/projects/:name/domains", [h](const Request& q, Responder& s) { h->list(q, s); });
  r.post("/projects/:name/domains/:host/verify",
         [h](const Request& q, Responder& s) { h->verify(q, s); });
  r.del("/projects/:name/domains/:host", [h](const Request& q, Responder& s) { h->remove(q, s); });
}

}  // namespace berth::projects
