// runtime.releases.v1 (<berth/services/runtime_releases.hpp>): releases made from files and a
// folder, for installers. `create` packs them into the gzip tar an upload would send and hands
// it to the same ReleasesPart::deploy as POST /projects/{name}/deploys; `get`, `wait` and
// `promote` answer as the routes do (releaseWithLogJson, ReleasesPart::promote).
#include <unistd.h>
#include <berth/services/projects_directory.hpp>
#include <berth/services/runtime_releases.hpp>
#include <berth/util/spooled_body.hpp>

#include <chrono>
#include <random>

#include "parts.hpp"
#include "release_archive.hpp"
#include "release_part.hpp"

namespace berth::runtime {

namespace {

namespace contract = berth::runtime_releases;
using berth::Error;
using Project = berth::projects_directory::Project;

// A name of our own in the edge's body folder: the blob store takes only files from there
// (isSpooledBody), and nginx names its own with digits only.
std::string archiveName(const std::string& body_dir) {
  std::random_device device;
  static const char* digits = "0123456789abcdef";
  std::string name = body_dir + "/.berth-release-";
  for (int i = 0; i < 24; ++i) name.push_back(digits[device() & 0xF]);
  return name;
}

class ReleasesService {
 public:
  ReleasesService(Context& context, ReleasesPart& part) : ctx_(context), part_(part) {}

  nlohmann::json create(const nlohmann::json& request) const {
    contract::CreateRequest asked = contract::parseCreateRequest(request);
    const Project project = projectOf(asked.project_id);
    const std::optional<std::string> cmd = givenStartCommand(asked.cmd, "cmd");
    const std::string body_dir =
        ctx_.services->coreSetting(berth::kEdgeBodyDirSetting).value_or("");
    if (body_dir.empty())
      throw Error::unavailable("the release cannot be stored: berthd has no edge body folder");
    // Removed in every case: the blob store moved it away when it took it.
    struct Archive {
      std::string path;
      ~Archive() { ::unlink(path.c_str()); }
    } archive{archiveName(body_dir)};
    writeReleaseArchive(archive.path, asked.folder, asked.files, kMaxArchiveBytes);
    ReleaseRecord release = part_.deploy(project, archive.path, cmd);
    ctx_.logger()
        .withProject(project.name)
        .info("release " + release.id + " made through " + std::string(contract::kService));
    return releaseJson(release);
  }

  nlohmann::json get(const nlohmann::json& request) const {
    contract::ReleaseKey key = contract::parseReleaseKey(request);
    const Project project = projectOf(key.project_id);
    return releaseWithLogJson(existing(project, key.release_id));
  }

  nlohmann::json wait(const nlohmann::json& request) const {
    contract::WaitRequest asked = contract::parseWaitRequest(request);
    const Project project = projectOf(asked.project_id);
    std::optional<ReleaseRecord> seen;
    auto done = [&] {
      seen = existing(project, asked.release_id);
      return seen->status != contract::kBuilding;
    };
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(asked.timeout_seconds);
    if (!part_.waitUntil(done, deadline) && (!seen || seen->status == contract::kBuilding))
      throw Error::unavailable("berthd is stopping; release " + asked.release_id +
                               " is still building");
    return releaseWithLogJson(*seen);
  }

  nlohmann::json promote(const nlohmann::json& request) const {
    contract::ReleaseKey key = contract::parseReleaseKey(request);
    const Project project = projectOf(key.project_id);
    return releaseJson(part_.promote(project, key.release_id).live);  // 404, 409, 410
  }

 private:
  // @throw Error 404 "no project called <id>".
  Project projectOf(const std::string& project_id) const {
    return berth::ProjectsDirectory(*ctx_.services).getById(project_id);
  }
  ReleaseRecord existing(const Project& project, const std::string& release_id) const {
    std::optional<ReleaseRecord> release = ctx_.releases->find(project.id, release_id);
    if (!release) throw Error::notFound("no release called " + release_id);
    return *release;
  }

  Context& ctx_;
  ReleasesPart& part_;
};

}  // namespace

void registerReleasesService(berth::Registrar& r, Context& context) {
  ReleasesPart* part = context.releases_part.get();  // made by registerReleases
  auto service = std::make_shared<ReleasesService>(context, *part);
  berth::ServiceMethods methods;
  methods[std::string(contract::kCreate)] = [service](const nlohmann::json& q) {
    return service->create(q);
  };
  methods[std::string(contract::kGet)] = [service](const nlohmann::json& q) {
    return service->get(q);
  };
  methods[std::string(contract::kWait)] = [service](const nlohmann::json& q) {
    return service->wait(q);
  };
  methods[std::string(contract::kPromote)] = [service](const nlohmann::json& q) {
    return service->promote(q);
  };
  r.service(std::string(contract::kService), std::move(methods));

  // A wait ends early when berthd stops: the core asks jobs to stop before any plugin stops.
  r.job("release_waits", std::chrono::seconds(1),
        [part](berth::JobContext& job) { part->watchWaits(job); });
}

}  // namespace berth::runtime
