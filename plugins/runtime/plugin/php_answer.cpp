#include "php_answer.hpp"

#include "php_route.hpp"

namespace berth::runtime {

void answerPhp(Context& context, const Project& project, const ReleaseRecord& release,
               const PhpSpecSource& spec, const berth::Request& request,
               berth::Responder& responder, std::optional<std::uint32_t> cache_ttl,
               PhpRetry retry) {
  const std::string release_dir = context.releaseDir(project.id, release.id);
  PhpRoute route = phpRouteFor(release_dir, request.rawPath());
  switch (route.kind) {
    case PhpRoute::Kind::File:
      return responder.file(route.path, route.content_type);
    case PhpRoute::Kind::Redirect:
      return responder.bytes(301, "text/plain; charset=utf-8", "moved to " + route.location + "\n",
                             {{"Location", route.location}});
    case PhpRoute::Kind::NotFound:
      return responder.error(404, "no such file");
    case PhpRoute::Kind::Script:
      break;
  }
  std::shared_ptr<const AppSpec> app = spec();
  auto exchange = berth::Exchange::make(request, responder);
  // Kept apart from the request: it is unusable once answered.
  auto logger = context.logger().withProject(project.name);
  std::string request_id = request.id();
  context.apps->start(
      project.id, *app,
      [exchange, logger, request_id, release_dir, cache_ttl, retry = std::move(retry),
       script = std::move(route.script_name)](const StartOutcome& outcome) {
        try {
          if (!outcome.ready && outcome.superseded && retry && retry(exchange)) return;
          if (outcome.ready && cache_ttl) {
            exchange->responder.fastcgiCached(outcome.port, release_dir, script, *cache_ttl);
            return;
          }
          if (outcome.ready) {
            exchange->responder.fastcgi(outcome.port, release_dir, script);
            return;
          }
          logger.write(berth::LogLevel::Warn, request_id,
                       "php-cgi did not start: " + outcome.error);
          exchange->responder.error(503, outcome.error, {{"output", outcome.last_lines}});
        } catch (...) {
          // Responder's last copy answers 500 when it goes.
        }
      });
}

}  // namespace berth::runtime
