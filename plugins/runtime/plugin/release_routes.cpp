// The release routes (docs/openapi.yaml, Releases): upload (202, built on a worker thread),
// listings, one release, promote; the jobs and hooks of the releases part. A project the
// caller cannot reach answers exactly like a missing one (404 from projects.directory.v1).
#include <berth/services/projects_directory.hpp>

#include "parts.hpp"
#include "release_part.hpp"

namespace berth::runtime {

namespace {

using berth::Error;
using berth::Request;
using berth::Responder;

constexpr int kProjectListLimit = 50;   // docs/openapi.yaml: 50 newest per project
constexpr int kAccountListLimit = 100;  // docs/openapi.yaml: 100 newest across projects

using Project = berth::projects_directory::Project;

Project reachableProject(const Context& ctx, const Request& req) {
  return berth::ProjectsDirectory(*ctx.services).find(req.caller().accountId, req.param("name"));
}

nlohmann::json listJson(const std::vector<ReleaseRecord>& releases) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : releases) list.push_back(releaseJson(r));
  return {{"deploys", std::move(list)}};
}

class ReleaseHandlers {
 public:
  explicit ReleaseHandlers(ReleasesPart& part) : part_(part), ctx_(part.context()) {}

  void upload(const Request& req, Responder& resp) const {
    Project project = reachableProject(ctx_, req);
    std::optional<std::string> file = req.bodyFile();
    if (!file)
      throw Error::badRequest("send the release as the request body (a gzip-compressed tar)");
    std::optional<std::string> header = givenStartCommand(req.header("x-berth-cmd"), "x-berth-cmd");
    ReleaseRecord release = part_.deploy(project, *file, header);
    ctx_.logger().withProject(project.name).info(req, "release " + release.id + " uploaded");
    resp.json(202, releaseJson(release));
  }

  void listProject(const Request& req, Responder& resp) const {
    Project project = reachableProject(ctx_, req);
    resp.json(200, listJson(ctx_.releases->listProject(project.id, kProjectListLimit)));
  }

  void listAll(const Request& req, Responder& resp) const {
    std::vector<std::string> accounts;
    for (const auto& account : ctx_.services->memberships(req.caller().accountId))
      accounts.push_back(account.id);
    resp.json(200, listJson(ctx_.releases->listAccounts(accounts, kAccountListLimit)));
  }

  void getOne(const Request& req, Responder& resp) const {
    Project project = reachableProject(ctx_, req);
    std::string id = req.param("id");
    auto release = ctx_.releases->find(project.id, id);
    if (!release) throw Error::notFound("no release called " + id);
    resp.json(200, releaseWithLogJson(*release));
  }

  void promote(const Request& req, Responder& resp) const {
    Project project = reachableProject(ctx_, req);
    std::string id = req.param("id");
    ReleasesPart::Promoted promoted = part_.promote(project, id);  // 404, 409, 410
    if (promoted.changed)
      ctx_.logger().withProject(project.name).info(req, "release " + id + " promoted");
    resp.json(200, releaseJson(promoted.live));
  }

 private:
  ReleasesPart& part_;
  Context& ctx_;
};

}  // namespace

void registerReleases(berth::Registrar& r, Context& context) {
  context.releases_part = std::make_shared<ReleasesPart>(context);
  ReleasesPart* part = context.releases_part.get();
  auto h = std::make_shared<ReleaseHandlers>(*part);

  berth::RouteOptions upload;
  upload.rawBody = true;
  upload.maxBodyBytes = kMaxArchiveBytes;  // the edge answers 413 above it
  r.post(
      "/projects/:name/deploys", [h](const Request& q, Responder& s) { h->upload(q, s); }, upload);
  r.get("/projects/:name/deploys", [h](const Request& q, Responder& s) { h->listProject(q, s); });
  r.get("/deploys", [h](const Request& q, Responder& s) { h->listAll(q, s); });
  r.get("/projects/:name/deploys/:id", [h](const Request& q, Responder& s) { h->getOne(q, s); });
  r.post("/projects/:name/deploys/:id/promote",
         [h](const Request& q, Responder& s) { h->promote(q, s); });

  // Fails builds a stopped berthd left unfinished (on its first run, before anyone waits on
  // them for long) and notices live releases other nodes changed.
  r.job(
      "releases_watch", std::chrono::seconds(2), [part](berth::JobContext&) { part->watch(); },
      true);

  r.hook("project.deleting", [part](const nlohmann::json& payload) {
    part->removeProject(payload.at("id").get<std::string>(), payload.value("name", ""));
  });
  // An upload that raced the delete may have left a row or a folder since.
  r.hook("project.deleted", [part](const nlohmann::json& payload) {
    try {
      part->removeProject(payload.at("id").get<std::string>(), payload.value("name", ""));
    } catch (const std::exception&) {
      // The project is gone either way; what is left is found by nobody.
    }
    // After project.deleting stopped its app: its uid may now go to another project.
    try {
      part->forgetIdentity(payload.at("id").get<std::string>());
    } catch (const std::exception& e) {
      part->context().logger().warn(std::string("project uid not freed: ") + e.what());
    }
  });
}

void stopReleases(Context& context) {
  if (context.releases_part) context.releases_part->stop();
  try {
    flushLogs(context);  // the build events of the last second
  } catch (const std::exception& e) {
    context.logger().warn(std::string("logs not flushed at stop: ") + e.what());
  }
}

}  // namespace berth::runtime
