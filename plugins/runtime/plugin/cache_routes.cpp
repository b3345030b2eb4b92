// DELETE /projects/{name}/cache: empties the project's edge cache (every node: the purge
// epoch in the database is part of the cache key). Any caller who can reach the project may
// purge; the answer is 204.
#include "gateway.hpp"

namespace berth::runtime {

void registerCacheRoutes(berth::Registrar& r, Context& context) {
  Context* c = &context;
  r.del("/projects/:name/cache", [c](const berth::Request& request, berth::Responder& responder) {
    // 404 "no project called <name>" unless the caller reaches it.
    nlohmann::json project = c->services->call(
        "projects.directory.v1", "find",
        {{"account_id", request.caller().accountId}, {"name", request.param("name")}});
    const std::string id = project.at("id").get<std::string>();
    c->gateway->purgeCache(id);
    c->logger()
        .withProject(project.at("name").get<std::string>())
        .info(request, "edge cache purged");
    responder.noContent();
  });
}

}  // namespace berth::runtime
