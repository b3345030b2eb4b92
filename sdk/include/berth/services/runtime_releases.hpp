// SPDX-License-Identifier: MIT
/** @file
 *  runtime.releases.v1: releases of a project made from files and folders rather than an
 *  uploaded archive, for starter-app installers (they call it through their InstallContext,
 *  which sets project_id and account_id). Header-only, no ABI: the requests and the Release,
 *  their JSON written and read once, the rule of a file's path, and a typed client.
 *
 *  Methods:
 *  - `create` {project_id, files?: [{path, content, executable?}], folder?, cmd?} -> Release
 *    (status "building"). The runtime packs `folder` (an absolute path on the server, such as
 *    a folder of the installer's payload; its files are copied, a link in it is refused), then
 *    `files` (a file of the same path replaces the folder's), into a gzip tar and takes it
 *    exactly as POST /projects/{name}/deploys takes an upload: the same row, the same build,
 *    the same unpack limits and rules, live once built. `cmd` is the x-berth-cmd header of
 *    the upload (blank: none).
 *  - `get` {project_id, release_id} -> Release with `build_log`, as GET
 *    /projects/{name}/deploys/{id}.
 *  - `wait` {project_id, release_id, timeout_seconds?} -> as `get`, once the release is no
 *    longer "building", or when timeout_seconds (1 to 1800, default 600) have passed (then it
 *    is still "building").
 *  - `promote` {project_id, release_id} -> Release, as POST /projects/{name}/deploys/{id}/promote.
 *
 *  A Release is {id, project, status, created_at, files, bytes, cmd, runtime, region, error}
 *  (docs/openapi.yaml, Release): status building, live, ready, failed or pruned; runtime and
 *  error may be null.
 *
 *  Refusals: 404 "no project called <id>", 404 "no release called <id>"; 400 "<field> is
 *  required and must be a string", "files must be an array of {path, content, executable?}",
 *  "files[<i>].path ..." (see releasePathProblem), "folder must be an absolute path",
 *  "a release needs files or a folder", "folder <path> is not a folder", "folder <path> holds
 *  <entry>, a link (or device, fifo, socket), which a release cannot hold", "cmd: <rule>" (the
 *  start-command rule of x-berth-cmd), "timeout_seconds must be a whole number from 1 to
 *  1800"; 409 "a release of <name> is already building; upload again when it is done"; 413
 *  when the packed release passes 256 MB; promote's 409 and 410 as the route's; 503 "berthd is
 *  stopping ..." (a wait cut short, a build that cannot be queued).
 */
#ifndef BERTH_SERVICES_RUNTIME_RELEASES_HPP
#define BERTH_SERVICES_RUNTIME_RELEASES_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace runtime_releases {

inline constexpr std::string_view kService = "runtime.releases.v1";
inline constexpr std::string_view kCreate = "create";
inline constexpr std::string_view kGet = "get";
inline constexpr std::string_view kWait = "wait";
inline constexpr std::string_view kPromote = "promote";

inline constexpr int64_t kDefaultWaitSeconds = 600;
inline constexpr int64_t kMaxWaitSeconds = 1800;
/** The longest path of a file in `files`, in bytes. */
inline constexpr size_t kMaxPathBytes = 1024;

/** Release statuses. */
inline constexpr std::string_view kBuilding = "building";
inline constexpr std::string_view kLive = "live";
inline constexpr std::string_view kReady = "ready";
inline constexpr std::string_view kFailed = "failed";
inline constexpr std::string_view kPruned = "pruned";

/** One file of a release made by `create`. */
struct ReleaseFile {
  std::string path;  ///< relative to the release's root ("src/app.js")
  std::string content;
  bool executable = false;  ///< mode 0755 instead of 0644
};

struct CreateRequest {
  std::string project_id;
  std::vector<ReleaseFile> files;
  std::optional<std::string> folder;  ///< absolute; packed first, `files` replace its files
  std::optional<std::string> cmd;     ///< the start command (x-berth-cmd of an upload)
};

/** get and promote. */
struct ReleaseKey {
  std::string project_id;
  std::string release_id;
};

struct WaitRequest {
  std::string project_id;
  std::string release_id;
  int64_t timeout_seconds = kDefaultWaitSeconds;
};

/** The Release of docs/openapi.yaml; build_log only in the answers of get and wait. */
struct Release {
  std::string id;
  std::string project;  ///< the project's name
  std::string status;   ///< building, live, ready, failed, pruned
  int64_t created_at = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  std::string cmd;  ///< "" for a static site once built
  std::optional<std::string> runtime;
  std::string region;
  std::optional<std::string> error;  ///< why it failed
  std::optional<std::string> build_log;

  bool operator==(const Release&) const = default;
};

/** What is wrong with a file's path, as the end of "files[<i>].path ...", or std::nullopt. The
 *  unpacker refuses the same paths in an uploaded archive; here they are refused before
 *  anything is recorded. */
inline std::optional<std::string> releasePathProblem(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (path.size() > kMaxPathBytes) return "is longer than 1024 bytes";
  if (path.front() == '/') return "must be relative to the release's root, not start with '/'";
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7F) return "must not hold control characters";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return "must not hold empty parts (\"//\" or a trailing \"/\")";
    if (part == "." || part == "..") return "must not hold \".\" or \"..\" parts";
    start = end + 1;
  }
  return std::nullopt;
}

inline nlohmann::json toJson(const ReleaseFile& f) {
  return {{"path", f.path}, {"content", f.content}, {"executable", f.executable}};
}

inline nlohmann::json toJson(const CreateRequest& r) {
  nlohmann::json files = nlohmann::json::array();
  for (const ReleaseFile& f : r.files) files.push_back(toJson(f));
  nlohmann::json out = {{"project_id", r.project_id}, {"files", std::move(files)}};
  if (r.folder) out["folder"] = *r.folder;
  if (r.cmd) out["cmd"] = *r.cmd;
  return out;
}

/** @throw Error 400 naming what is wrong (the texts of the @file comment, in that order). */
inline CreateRequest parseCreateRequest(const nlohmann::json& request) {
  CreateRequest r;
  r.project_id = service_json::requiredText(request, "project_id");
  if (const nlohmann::json* files = service_json::requestField(request, "files")) {
    const std::string shape = "files must be an array of {path, content, executable?}";
    if (!files->is_array()) throw Error::badRequest(shape);
    for (size_t i = 0; i < files->size(); ++i) {
      const nlohmann::json& item = (*files)[i];
      const std::string name = "files[" + std::to_string(i) + "]";
      if (!item.is_object()) throw Error::badRequest(shape);
      // The item's fields are named with its index ("files[2].path").
      auto text = [&](const char* field) {
        const nlohmann::json* v = service_json::requestField(item, field);
        if (v == nullptr || !v->is_string())
          throw Error::badRequest(name + "." + field + " is required and must be a string");
        return v->get<std::string>();
      };
      ReleaseFile f;
      f.path = text("path");
      if (auto problem = releasePathProblem(f.path))
        throw Error::badRequest(name + ".path " + *problem);
      f.content = text("content");
      const nlohmann::json* executable = service_json::requestField(item, "executable");
      if (executable != nullptr && !executable->is_boolean())
        throw Error::badRequest(name + ".executable must be a boolean");
      f.executable = executable != nullptr && executable->get<bool>();
      r.files.push_back(std::move(f));
    }
  }
  r.folder = service_json::optionalText(request, "folder");
  if (r.folder && (r.folder->empty() || r.folder->front() != '/'))
    throw Error::badRequest("folder must be an absolute path");
  r.cmd = service_json::optionalText(request, "cmd");
  if (r.files.empty() && !r.folder) throw Error::badRequest("a release needs files or a folder");
  return r;
}

inline nlohmann::json toJson(const ReleaseKey& k) {
  return {{"project_id", k.project_id}, {"release_id", k.release_id}};
}

/** @throw Error 400 "<field> is required and must be a string". */
inline ReleaseKey parseReleaseKey(const nlohmann::json& request) {
  return {service_json::requiredText(request, "project_id"),
          service_json::requiredText(request, "release_id")};
}

inline nlohmann::json toJson(const WaitRequest& w) {
  return {{"project_id", w.project_id},
          {"release_id", w.release_id},
          {"timeout_seconds", w.timeout_seconds}};
}

/** @throw Error 400 for a missing id or a timeout outside 1..1800. */
inline WaitRequest parseWaitRequest(const nlohmann::json& request) {
  ReleaseKey key = parseReleaseKey(request);
  WaitRequest w{std::move(key.project_id), std::move(key.release_id), kDefaultWaitSeconds};
  if (const nlohmann::json* t = service_json::requestField(request, "timeout_seconds")) {
    if (!t->is_number_integer() || t->get<int64_t>() < 1 || t->get<int64_t>() > kMaxWaitSeconds)
      throw Error::badRequest("timeout_seconds must be a whole number from 1 to 1800");
    w.timeout_seconds = t->get<int64_t>();
  }
  return w;
}

inline nlohmann::json toJson(const Release& r) {
  nlohmann::json out = {
      {"id", r.id},         {"project", r.project},
      {"status", r.status}, {"created_at", r.created_at},
      {"files", r.files},   {"bytes", r.bytes},
      {"cmd", r.cmd},       {"runtime", r.runtime ? nlohmann::json(*r.runtime) : nlohmann::json()},
      {"region", r.region}, {"error", r.error ? nlohmann::json(*r.error) : nlohmann::json()}};
  if (r.build_log) out["build_log"] = *r.build_log;
  return out;
}

/** @param method the method that answered (for the message of a refusal).
 *  @throw Error 500 naming the field when one is missing or of the wrong type. */
inline Release parseRelease(const nlohmann::json& answer, std::string_view method) {
  service_json::Answer a(answer, kService, method);
  Release r;
  r.id = a.text("id");
  r.project = a.text("project");
  r.status = a.text("status");
  r.created_at = a.integer("created_at");
  r.files = a.count("files");
  r.bytes = a.count("bytes");
  r.cmd = a.text("cmd");
  r.runtime = a.textOrNull("runtime");
  r.region = a.text("region");
  r.error = a.textOrNull("error");
  if (method == kGet || method == kWait) r.build_log = a.text("build_log");
  return r;
}

}  // namespace runtime_releases

/** runtime.releases.v1 through Services::call. */
class RuntimeReleases {
 public:
  explicit RuntimeReleases(const Services& services) : services_(&services) {}

  runtime_releases::Release create(const runtime_releases::CreateRequest& request) const {
    using namespace runtime_releases;
    return parseRelease(services_->call(kService, kCreate, toJson(request)), kCreate);
  }
  runtime_releases::Release get(std::string_view project_id, std::string_view release_id) const {
    using namespace runtime_releases;
    return parseRelease(
        services_->call(kService, kGet,
                        toJson(ReleaseKey{std::string(project_id), std::string(release_id)})),
        kGet);
  }
  runtime_releases::Release wait(const runtime_releases::WaitRequest& request) const {
    using namespace runtime_releases;
    return parseRelease(services_->call(kService, kWait, toJson(request)), kWait);
  }
  runtime_releases::Release promote(std::string_view project_id,
                                    std::string_view release_id) const {
    using namespace runtime_releases;
    return parseRelease(
        services_->call(kService, kPromote,
                        toJson(ReleaseKey{std::string(project_id), std::string(release_id)})),
        kPromote);
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_RUNTIME_RELEASES_HPP
