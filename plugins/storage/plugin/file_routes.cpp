#include "file_routes.hpp"

#include <sys/stat.h>

#include <berth/util/spooled_body.hpp>

#include "blob_names.hpp"
#include "file_paths.hpp"

namespace berth::storage {

namespace {

using berth::Error;
using berth::Request;
using berth::Responder;

const std::string kFiles(kFilesSpace);

using Project = berth::projects_directory::Project;

std::string tooLarge() {
  return "the request body is too large for this route (limit " +
         std::to_string(kMaxFileBytes / (1024 * 1024)) + " MB)";
}

nlohmann::json fileJson(const BlobRecord& b, const std::string& project_url) {
  return {{"path", b.key},
          {"bytes", b.size},
          {"url", project_url + "/_files/" + urlPath(b.key)},
          {"content_type", b.content_type},
          {"sha256", b.sha256},
          {"created_at", b.created_at},
          {"updated_at", b.updated_at}};
}

class FileHandlers {
 public:
  explicit FileHandlers(Context& context) : c_(context) {}

  void upload(const Request& req, Responder& resp) const {
    Project project = find(req);
    std::string path = req.param("path");
    if (auto why = pathRefusal(path)) throw Error::badRequest(*why);
    std::optional<std::string> spooled = req.bodyFile();
    if (spooled && !spooled->empty()) {
      checkSpooled(*spooled);
    } else {
      // Bodies reach berthd in memory only when the edge did not spool them (a small body
      // on a path nginx spelled differently); the limit still holds.
      spooled.reset();
      if (req.body().size() > kMaxFileBytes) throw Error::payloadTooLarge(tooLarge());
    }
    // Hashing and fsyncing up to 64 MB happens off the server thread.
    auto exchange = berth::Exchange::make(req, resp);
    auto work = [this, exchange, project, path, spooled] {
      answer(*exchange, project.name, [&] {
        std::string type = c_.mime.typeOf(path);
        LogTo log{c_.logger().withProject(project.name), exchange->request.id()};
        BlobRecord stored =
            spooled
                ? c_.store->putFile(log, project.id, kFiles, path, *spooled, /*move=*/true, type)
                : c_.store->putBytes(log, project.id, kFiles, path, exchange->request.body(), type);
        // Before the answer, so that a replace is what the edge sends from now on.
        if (c_.tree) {
          if (auto local = c_.store->localPath(stored))
            publishChecked(project.id, path, *local, stored.object);
          else
            c_.tree->unpublish(project.id, path);
        }
        c_.logger()
            .withProject(project.name)
            .info(exchange->request,
                  "stored file " + path + " (" + std::to_string(stored.size) + " bytes)");
        exchange->responder.json(201, fileJson(stored, project.url));
      });
    };
    if (!c_.work.post(work)) work();
  }

  void list(const Request& req, Responder& resp) const {
    Project project = find(req);
    nlohmann::json files = nlohmann::json::array();
    for (const auto& b : c_.store->list(project.id, kFiles, "", "", kListEverything))
      files.push_back(fileJson(b, project.url));
    resp.json(200, {{"files", std::move(files)}});
  }

  void remove(const Request& req, Responder& resp) const {
    Project project = find(req);
    std::string path = req.param("path");
    if (auto why = pathRefusal(path)) throw Error::badRequest(*why);
    LogTo log{c_.logger().withProject(project.name), req.id()};
    // Before and after: a miss served meanwhile may have put the entry back; once the object
    // is gone, none can.
    if (c_.tree) c_.tree->unpublish(project.id, path);
    bool removed = c_.store->remove(log, project.id, kFiles, path);
    if (c_.tree) c_.tree->unpublish(project.id, path);
    if (!removed) throw Error::notFound("no file called " + path);
    c_.logger().withProject(project.name).info(req, "deleted file " + path);
    resp.noContent();
  }

  // POST and DELETE /projects/{name}/files/ (the path left empty).
  void emptyPath(const Request& req, Responder&) const {
    find(req);
    throw Error::badRequest(*pathRefusal(""));
  }

  // GET and HEAD /_files/<path> on a project host: the edge sends the object itself
  // (sendfile, Range, ETag, Last-Modified, conditional requests); berthd only finds it.
  void serve(const Request& req, Responder& resp) const {
    // Before the host is looked up: a domain change heard meanwhile may not be in the answer.
    const uint64_t hosts_began = c_.tree ? c_.tree->hostGeneration() : 0;
    Project project = c_.hosts.byHost(berth::ProjectsDirectory(*c_.services), req.host());
    std::string path = req.param("path");
    if (pathRefusal(path)) throw Error::notFound("no such file");
    std::optional<BlobRecord> blob = c_.store->findServed(project.id, kFiles, path);
    if (!blob) throw Error::notFound("no such file");
    std::optional<std::string> local = c_.store->localPath(*blob);
    if (!local) throw Error::notImplemented("this blob backend cannot hand files to the edge");
    // A miss at the edge: the next request for it will not reach berthd.
    if (c_.tree && c_.tree->linkHost(req.host(), project.id, hosts_began))
      publishChecked(project.id, path, *local, blob->object);
    resp.file(*local, blob->content_type);
  }

 private:
  // Links `local` (the bytes of `object`) as the file, then reads the record again, past any
  // memory: a change another node committed before that read is undone here, and one
  // committed after it is heard later (edge_changes.hpp) and finds the link to check. So a link
  // to bytes the record no longer names never outlives the change's notification.
  void publishChecked(const std::string& project_id, const std::string& path,
                      const std::string& local, const std::string& object) const {
    if (!c_.tree->publish(project_id, path, local)) {
      c_.tree->unpublish(project_id, path);  // an older entry must not stay instead
      return;
    }
    std::optional<BlobRecord> now;
    try {
      now = c_.store->find(project_id, kFiles, path);
    } catch (const std::exception&) {
      // Unsure: the edge asks berthd next time.
    }
    if (!now || now->object != object) c_.tree->unpublish(project_id, path);
  }

  // Runs `fn` on a work thread, answering what it throws the way the SDK does for handlers
  // (a database error's SQL goes to the log, never to the caller).
  template <class F>
  void answer(berth::Exchange& exchange, const std::string& project, F&& fn) const {
    auto log = c_.logger().withProject(project);
    try {
      fn();
    } catch (const berth::DbError& e) {
      log.error(exchange.request,
                std::string("upload failed: ") + e.message() + " (SQLSTATE " + e.sqlstate() + ")");
      exchange.responder.error(500, "internal error");
    } catch (const Error& e) {
      exchange.responder.error(e);
    } catch (const std::exception& e) {
      log.error(exchange.request, std::string("upload failed: ") + e.what());
      exchange.responder.error(500, "internal error");
    }
  }

  // GET /projects/{name}/files lists every stored file (docs/openapi.yaml); a bound keeps one
  // answer finite.
  static constexpr int64_t kListEverything = 1000000;

  // A project the caller can reach, else 404 "no project called {name}" from the directory.
  Project find(const Request& req) const {
    return berth::ProjectsDirectory(*c_.services).find(req.caller().accountId, req.param("name"));
  }

  // The edge names the file it spooled the body to; the store takes it over, so it must be
  // one of the edge's own (berthd checked it too): nothing else is ever moved.
  void checkSpooled(const std::string& file) const {
    std::string folder = c_.services->coreSetting(berth::kEdgeBodyDirSetting).value_or("");
    struct stat st {};
    if (!berth::isSpooledBody(folder, file) || ::lstat(file.c_str(), &st) != 0)
      throw Error::badRequest("the request body could not be read");
    if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes) throw Error::payloadTooLarge(tooLarge());
  }

  Context& c_;
};

}  // namespace

void registerFileRoutes(berth::Registrar& r, Context& context) {
  auto h = std::make_shared<FileHandlers>(context);
  berth::RouteOptions upload;
  upload.rawBody = true;
  upload.maxBodyBytes = kMaxFileBytes;
  r.post(
      "/projects/:name/files/*path", [h](const Request& q, Responder& s) { h->upload(q, s); },
      upload);
  // "*path" needs at least one character; an empty path still gets its own answer.
  r.post("/projects/:name/files/", [h](const Request& q, Responder& s) { h->emptyPath(q, s); });
  r.del("/projects/:name/files/", [h](const Request& q, Responder& s) { h->emptyPath(q, s); });
  r.get("/projects/:name/files", [h](const Request& q, Responder& s) { h->list(q, s); });
  r.del("/projects/:name/files/*path", [h](const Request& q, Responder& s) { h->remove(q, s); });
  berth::RouteOptions project_host;
  project_host.projectHost = true;
  r.get(
      "/_files/*path", [h](const Request& q, Responder& s) { h->serve(q, s); }, project_host);
}

}  // namespace berth::storage
