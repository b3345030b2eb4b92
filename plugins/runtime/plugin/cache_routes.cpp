// DELETE /projects/{name}/cache: empties the project's edge cache (every node: the purge
// epoch in the database is part of the cache key). Any caller who can reach the project may
// purge; the answer is 204.
#include "gateway.hpp"

namespace berth::runtime {

void registerCacheRoutes(berth::Registrar& r, Context& context) {
  Context* c = &context;
  r.del("/projects/:name/cache", [c](const berth::Request& request, berth::Responder& responder) {
    // 404 "no project called <name>" unless the caller reaches it.
    const Project project = berth::ProjectsDirectory(*c->services)
                                .find(request.caller().accountId, request.param("name"));
    c->gateway->purgeCache(project.id);
    c->logger().withProject(project.name).info(request, "edge cache purged");
    responder.noContent();
  });
}

}  // namespace berth::runtime
