#include "gateway.hpp"

#include <berth/cluster.hpp>

#include <set>

#include "gateway_app_spec.hpp"
#include "parts.hpp"
#include "php_answer.hpp"
#include "release_fetch.hpp"
#include "static_site.hpp"

namespace berth::runtime {

namespace {

using berth::Error;
using berth::Request;
using berth::Responder;

// How often a request waiting for an app follows it to its replacement (a restart, a new
// release); more in one wait means something keeps replacing it.
constexpr int kStartRetries = 3;

// Pushes the whole rule set to the edge (the core reloads nginx). A rule the core would refuse
// is left out and logged, so one odd custom host cannot take the others' cache away.
void publishRules(const Context& context, const std::vector<CacheRule>& rules) {
  std::vector<berth::EdgeCacheRule> edge;
  std::set<std::string> hosts;
  for (const auto& rule : rules) {
    berth::EdgeCacheRule candidate{rule.host, rule.key, rule.ttl_seconds};
    std::string problem = berth::detail::edgeCacheRuleProblem(candidate);
    if (problem.empty() && !hosts.insert(rule.host).second)
      problem = "edge cache host '" + rule.host + "' is given twice";
    if (!problem.empty()) {
      context.logger().warn("edge cache rule left out: " + problem);
      continue;
    }
    edge.push_back(std::move(candidate));
  }
  try {
    context.services->setEdgeCache(edge);
  } catch (const std::exception& e) {
    context.logger().error(std::string("the edge did not take the cache rules: ") + e.what());
  }
}

// The app rules, whole. A host the core would refuse (it checks them as cache hosts) is left
// out and logged; when the edge takes nothing, berthd keeps answering every request.
void publishAppRules(const Context& context, const std::vector<berth::EdgeAppRule>& rules) {
  std::vector<berth::EdgeAppRule> edge;
  for (const auto& rule : rules) {
    std::string problem = berth::detail::edgeCacheRuleProblem({rule.host, "x", 0});
    if (!problem.empty()) {
      context.logger().warn("edge app rule left out: " + problem);
      continue;
    }
    edge.push_back(rule);
  }
  try {
    context.services->setEdgeApps(edge);
  } catch (const std::exception& e) {
    context.logger().error(std::string("the edge did not take the app rules: ") + e.what());
  }
}

// Apps the edge may reach directly: every process release but PHP's (answered through
// FastCGI by berthd's decision).
bool directApp(const ReleaseRecord& release) {
  if (release.kind != StartKind::Process) return false;
  std::string runtime = release.runtime.value_or("");
  for (char& c : runtime) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return runtime != "php";
}

// A schedule's run carries berthd's node proof (core setting server.node_proof, new at every
// start), compared in constant time; x-berth-schedule from anyone else is an ordinary header.
bool provenByNode(const Context& context, const Request& request) {
  std::optional<std::string> given = request.header("x-berth-node-proof");
  if (!given) return false;
  std::string proof = context.services->coreSetting("server.node_proof").value_or("");
  if (proof.empty() || given->size() != proof.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < proof.size(); ++i)
    difference |= static_cast<unsigned char>((*given)[i] ^ proof[i]);
  return difference == 0;
}

// The hosts a decision covers: the one asked and the project's own.
std::vector<std::string> hostsOf(const Project& project, const std::string& host) {
  std::vector<std::string> hosts{host};
  if (!project.host.empty() && project.host != host) hosts.push_back(project.host);
  return hosts;
}

}  // namespace

Gateway::Gateway(Context& context)
    : context_(context),
      routing_(context),
      cache_(
          context,
          [&context](const std::vector<CacheRule>& rules) { publishRules(context, rules); },
          [this](const std::string& project_id) {
            auto release = routing_.live(project_id);
            return release ? release->id : std::string();
          }),
      edge_apps_([&context](const std::vector<berth::EdgeAppRule>& rules) {
        publishAppRules(context, rules);
      }),
      edge_files_(context),
      owners_(context) {}

void Gateway::handle(const Request& request, Responder& responder) {
  dispatch(request, responder, kStartRetries);
}

void Gateway::dispatch(const Request& request, Responder& responder, int retries_left) {
  Project project = routing_.byHost(request.host());
  idle_.touch(project.id);
  // What the access log cannot tell: the method of a request nginx passed on through an
  // internal redirect (it logs GET), and the schedule that made it.
  std::optional<std::string> schedule = request.header("x-berth-schedule");
  if (schedule && !provenByNode(context_, request)) schedule.reset();
  std::string method = request.method();
  RequestNote note{method == "GET" ? "" : method, schedule};
  // Read now: once answered, the request is gone (the responder owns it).
  const std::string request_id = request.id();
  if (schedule || method != "GET") notes_.remember(request_id, note);
  std::shared_ptr<const ReleaseRecord> release = routing_.live(project.id);
  if (!release) throw Error::notFound(project.name + " has no live release yet");
  // Owned by another node: its edge serves it, and this node needs no release files.
  bool owned_elsewhere = false;
  if (proxiedToOwner(project, *release, request, responder, owned_elsewhere)) {
    note.proxied = true;  // logged once, by the owner's edge
    notes_.remember(request_id, note);
    return;
  }
  // Built on another node: its folder is made here first, the request held meanwhile.
  if (!releaseFolderReady(context_, *release, request, responder,
                          [this, retries_left](const Request& again, Responder& answer) {
                            dispatch(again, answer, retries_left);
                          }))
    return;
  switch (release->kind) {
    case StartKind::Static:
      return serveStatic(project, *release, request, responder);
    case StartKind::Process:
      return serveApp(project, *release, request, responder, retries_left, owned_elsewhere);
    case StartKind::Php: {
      std::optional<std::uint32_t> cache_ttl;
      if (EdgeCache::cacheableRequest(project, request)) {
        cache_.served(project, request.host(), release->id);
        cache_ttl = project.cache_ttl;
      }
      return answerPhp(
          context_, project, *release, [&] { return specFor(project, *release); }, request,
          responder, cache_ttl,
          [this, retries_left](std::shared_ptr<berth::Exchange> exchange) {
            if (retries_left <= 0) return false;
            try {
              dispatch(exchange->request, exchange->responder, retries_left - 1);
            } catch (const Error& e) {  // what handle()'s caller would have answered
              exchange->responder.error(e.status(), e.what());
            }
            return true;
          });
    }
  }
}

void Gateway::serveStatic(const Project& project, const ReleaseRecord& release,
                          const Request& request, Responder& responder) {
  const std::string dir = context_.releaseDir(project.id, release.id);
  // From now on the edge sends this host's files itself (what it does not find still
  // comes here).
  edge_files_.serving(project.id, hostsOf(project, request.host()), dir);
  StaticAnswer answer = staticFileFor(dir, request.rawPath());
  switch (answer.kind) {
    case StaticAnswer::Kind::File:
      return responder.file(answer.path, answer.content_type);
    case StaticAnswer::Kind::Redirect:
      return responder.bytes(301, "text/plain; charset=utf-8", "moved to " + answer.location + "\n",
                             {{"Location", answer.location}});
    case StaticAnswer::Kind::NotFound:
      break;
  }
  responder.error(404, "no such file");
}

bool Gateway::proxiedToOwner(const Project& project, const ReleaseRecord& release,
                             const Request& request, Responder& responder, bool& owned_elsewhere) {
  // One node runs a project's app (AppOwners); PHP and static sites are served here.
  if (release.kind != StartKind::Process || !directApp(release) || !owners_.enabled()) return false;
  const bool forwarded = berth::forwardedByNode(*context_.services, request);
  std::string owner;
  try {
    owner = owners_.claim(project.id);
  } catch (const std::exception& e) {
    // The control plane is out of reach: serving here beats failing the request.
    context_.logger()
        .withProject(project.name)
        .warn(std::string("could not claim the app for this node (") + e.what() + "); served here");
  }
  switch (ownerAction(owner, forwarded)) {
    case OwnerAction::ProxyToOwner:
      berth::proxyToNode(responder, owner);
      return true;
    case OwnerAction::ServeHereAnyway:
      owned_elsewhere = true;
      context_.logger()
          .withProject(project.name)
          .warn("a request another node forwarded here while node " + owner +
                " holds the app: served here, not forwarded again");
      return false;
    case OwnerAction::ServeHere:
      return false;
  }
  return false;
}

void Gateway::serveApp(const Project& project, const ReleaseRecord& release, const Request& request,
                       Responder& responder, int retries_left, bool owned_elsewhere) {
  startApp(project, release, berth::Exchange::make(request, responder), retries_left,
           owned_elsewhere);
}

void Gateway::startApp(const Project& project, const ReleaseRecord& release,
                       std::shared_ptr<berth::Exchange> exchange, int retries_left,
                       bool owned_elsewhere) {
  const Request& request = exchange->request;
  std::shared_ptr<const AppSpec> spec = specFor(project, release);
  const bool cacheable = EdgeCache::cacheableRequest(project, request);
  // An app another node owns serves the request forwarded here, but the edge does not send
  // this host's later requests to it: they go to the owner.
  const bool direct = directApp(release) && !owned_elsewhere;
  std::vector<std::string> hosts = hostsOf(project, request.host());
  if (direct && project.cache_enabled && project.cache_ttl > 0) {
    // The edge will send these hosts' requests straight to the app: through the cache.
    for (const auto& host : hosts) cache_.served(project, host, release.id);
  } else if (cacheable) {
    cache_.served(project, request.host(), release.id);
  }
  // Kept apart from the request: it is unusable once answered.
  auto logger = context_.logger().withProject(project.name);
  std::string request_id = request.id();
  const std::uint32_t ttl = project.cache_ttl;
  std::string release_id = release.id;
  context_.apps->start(
      project.id, *spec,
      [this, exchange, logger, request_id, cacheable, ttl, direct, project, release_id,
       retries_left, hosts = std::move(hosts)](const StartOutcome& outcome) {
        const std::string& project_id = project.id;
        try {
          if (!outcome.ready && outcome.superseded && retries_left > 0) {
            // Stopped for a restart or a new release while this request waited: whatever
            // is live now serves it (a start of its own, within its own start timeout).
            std::shared_ptr<const ReleaseRecord> live = routing_.live(project_id);
            if (live && live->kind == StartKind::Process) {
              startApp(project, *live, exchange, retries_left - 1);
              return;
            }
          }
          // A slow start must not eat into the idle time: the request counts from now too.
          if (outcome.ready) idle_.touch(project_id);
          if (outcome.ready && direct) {
            // Later requests go straight to the app, unless the release changed meanwhile.
            auto live = routing_.live(project_id);
            if (live && live->id == release_id) edge_apps_.ready(project_id, hosts, outcome.port);
          }
          if (outcome.ready && cacheable) {
            exchange->responder.proxyCached(outcome.port, ttl);
            return;
          }
          if (outcome.ready) {
            exchange->responder.proxy(outcome.port);
            return;
          }
          logger.write(berth::LogLevel::Warn, request_id,
                       "the app did not start: " + outcome.error);
          exchange->responder.error(503, outcome.error, {{"output", outcome.last_lines}});
        } catch (...) {
          // Responder's last copy answers 500 when it goes.
        }
      });
}

std::shared_ptr<const AppSpec> Gateway::specFor(const Project& project,
                                                const ReleaseRecord& release) {
  {
    std::lock_guard lock(specs_mutex_);
    auto found = specs_.find(project.id);
    if (found != specs_.end() &&
        found->second->release_dir == context_.releaseDir(project.id, release.id))
      return found->second;
  }
  auto spec = std::make_shared<const AppSpec>(appSpecFor(context_, project, release));
  std::lock_guard lock(specs_mutex_);
  specs_[project.id] = spec;
  return spec;
}

void Gateway::forgetSpec(const std::string& project_id) {
  std::lock_guard lock(specs_mutex_);
  specs_.erase(project_id);
}

bool Gateway::hostBelongs(const std::string& host, const std::string& project_id) {
  try {
    return routing_.byHost(host).id == project_id;
  } catch (const berth::Error& e) {
    return e.status() != 404;  // the directory not answering is no reason to drop a host
  } catch (const std::exception&) {
    return true;
  }
}

void Gateway::liveChanged(const std::string& project_id) {
  routing_.forgetLive(project_id);
  forgetSpec(project_id);
  cache_.liveChanged(project_id);  // first: a HIT would serve the old release
  // Before the old app stops: a request meeting it gone in the edge's reload gets its 502 and
  // comes here, which starts the new release.
  edge_apps_.remove(project_id);
  std::shared_ptr<const ReleaseRecord> release = routing_.live(project_id);
  edge_files_.liveChanged(project_id, release && release->kind == StartKind::Static
                                          ? context_.releaseDir(project_id, release->id)
                                          : std::string());
  // The next request starts the new one. A request that came between the release's commit
  // and this announcement read the new release already and may be starting its app: that app
  // stays (stopping it would answer that request 503).
  if (release && release->kind != StartKind::Static)
    context_.apps->stopOtherThan(project_id, context_.releaseDir(project_id, release->id));
  else
    context_.apps->stop(project_id);
}

void Gateway::secretChanged(const nlohmann::json& payload) {
  refreshEnvironment(
      payload.value("id", ""), payload.value("name", ""),
      "secret " + payload.value("secret", "") + " changed: the app gets the new value");
}

void Gateway::refreshEnvironment(const std::string& project_id, const std::string& name,
                                 const std::string& why) {
  if (project_id.empty()) return;
  std::lock_guard refreshing(refresh_mutex_);
  forgetSpec(project_id);
  std::shared_ptr<AppProcess> app = context_.apps->find(project_id);
  if (!app) return;  // never started here: the next start reads its environment afresh
  std::shared_ptr<const ReleaseRecord> release = routing_.live(project_id);
  if (!release || release->kind == StartKind::Static) return;  // PHP apps restart too
  AppEnvironmentInput environment = appEnvironmentFor(context_, project_id, *release);
  // Already the new one: the change was applied here before (its hook, then its NOTIFY).
  if (environment == app->environment()) return;
  // It restarts on another port: until a request makes it again, the rule would lead nowhere.
  edge_apps_.remove(project_id);
  // A running app restarts with the new environment now; a stopped one gets it at its start.
  app->setEnvironment(std::move(environment));
  context_.logger().withProject(name.empty() ? project_id : name).info(why);
}

void Gateway::secretsChanged(const SecretChanges::Pending& pending) {
  if (!context_.apps) return;
  std::set<std::string> projects = pending.projects;
  if (pending.all) {
    {
      std::lock_guard lock(specs_mutex_);
      specs_.clear();
    }
    for (auto& project_id : context_.apps->active()) projects.insert(std::move(project_id));
  }
  for (const auto& project_id : projects) {
    try {
      refreshEnvironment(project_id, routing_.nameOf(project_id),
                         "secrets changed: the app gets the new values");
    } catch (const std::exception& e) {
      // Dropped already: the app's next start reads its environment afresh.
      context_.logger()
          .withProject(routing_.nameOf(project_id))
          .warn(std::string("could not restart the app with its changed secrets: ") + e.what());
    }
  }
}

void Gateway::startOptionsChanged(const std::string& project_id, const std::string& name) {
  forgetSpec(project_id);
  std::shared_ptr<AppProcess> app = context_.apps->find(project_id);
  if (!app) return;  // never started here: the next start reads its options afresh
  const bool active = app->state() != AppState::Stopped;
  app.reset();
  std::shared_ptr<const ReleaseRecord> release = routing_.live(project_id);
  // As refreshEnvironment: its rule would lead to the old process's port.
  edge_apps_.remove(project_id);
  context_.apps->stop(project_id);  // forgotten: a later start makes a process with the new spec
  if (!active || !release || release->kind == StartKind::Static) return;
  Project project;
  project.id = project_id;
  project.name = name;
  try {
    context_.apps->start(project_id, *specFor(project, *release), [](const StartOutcome&) {});
    context_.logger().withProject(name).info("start options changed: the app restarts with them");
  } catch (const std::exception& e) {
    // The options are stored; the next request meets the same refusal and answers it (503).
    context_.logger().withProject(name).warn(
        std::string("start options changed; the app could not start again: ") + e.what());
  }
}

void Gateway::deleting(const nlohmann::json& payload) {
  const std::string project_id = payload.value("id", "");
  if (project_id.empty()) return;
  edge_apps_.remove(project_id);
  edge_files_.forget(project_id);
  context_.apps->stop(project_id);
  releaseClaim(project_id);
  idle_.forget(project_id);
  routing_.forgetProject(project_id);
  forgetSpec(project_id);
  cache_.forget(project_id);
}

void Gateway::updated(const nlohmann::json& payload) {
  const std::string project_id = payload.value("id", "");
  if (project_id.empty()) return;
  routing_.forgetProject(project_id);  // its hosts carry cache_enabled and cache_ttl
  cache_.settingsChanged(project_id);
  keepOwnHosts();  // a renamed project's old host is no longer its own
}

void Gateway::domainsChanged(const nlohmann::json& payload) {
  const std::string host = payload.value("host", "");
  if (host.empty()) return;
  routing_.forgetHost(edgeHostName(host));
  keepOwnHosts();  // a removed domain's entries go now
  // The project's public address (BERTH_URL) may have changed with it.
  refreshEnvironment(payload.value("id", ""), payload.value("name", ""),
                     "domain " + host + " changed: the app gets its address as BERTH_URL");
}

void Gateway::keepOwnHosts() {
  auto belongs = [this](const std::string& host, const std::string& id) {
    return hostBelongs(host, id);
  };
  edge_apps_.keepHosts(belongs);
  edge_files_.keepHosts(belongs);
}

void Gateway::access(std::string_view line) {
  berth::AccessLine payload;
  if (!berth::parseAccessLine(line, payload) || payload.edge != "project") return;
  const std::string& host = payload.host;
  std::optional<Project> project = routing_.rememberedHost(host);
  if (!project) {
    try {
      project = routing_.byHost(host);
    } catch (const std::exception&) {
      return;  // no project there (a 404 of the gateway): nothing to log it in
    }
  }
  // Requests the edge sent straight to the app never reach handle(): this is their trace.
  idle_.touch(project->id);
  std::optional<RequestNote> note = notes_.take(payload.request_id);
  if (note && note->proxied) return;
  context_.logs.add(project->id, requestLogEntry(payload, note));
}

void Gateway::refresh() {
  cache_.refresh();
  // What another node changed (or a missed hook): hosts that left their project.
  keepOwnHosts();
}

void Gateway::idleRound() {
  edge_files_.ensureStarted();
  if (!context_.apps) return;
  auto running_port = [this](const std::string& project_id) -> std::uint16_t {
    std::shared_ptr<AppProcess> app = context_.apps->find(project_id);
    return app && app->state() == AppState::Running ? app->port() : 0;
  };
  // A crashed app's rule goes; one restarted on another port (after a crash) moves.
  edge_apps_.follow(running_port);
  IdleStop::Round round = idle_.round(edge_apps_.published(), context_.config.idle_stop);
  for (const auto& project_id : round.unpublish) {
    if (edge_apps_.pause(project_id))
      context_.logger()
          .withProject(routing_.nameOf(project_id))
          .info(
              "idle: its requests go through berthd again; the app stops once the edge has "
              "loaded that, unless one comes");
  }
  for (const auto& project_id : round.republish)
    edge_apps_.resume(project_id, running_port(project_id));
  for (const auto& project_id : round.stop) {
    // A request since the round began made its rule live again: it is not idle.
    if (edge_apps_.published().contains(project_id)) continue;
    std::shared_ptr<AppProcess> app = context_.apps->find(project_id);
    // An app still starting holds the request that started it (n8n's first start migrates its
    // database for longer than a short idle time): it is not idle, and its time runs from now.
    if (app && app->state() == AppState::Starting) {
      idle_.touch(project_id);
      continue;
    }
    edge_apps_.remove(project_id);
    if (app && app->state() != AppState::Stopped) app->stop();
    releaseClaim(project_id);
  }
  // The claims of the apps running here stay this node's; stopped and crashed ones go.
  try {
    owners_.renew(context_.apps->active());
  } catch (const std::exception& e) {
    context_.logger().warn(std::string("could not renew this node's app claims: ") + e.what());
  }
}

void Gateway::releaseClaim(const std::string& project_id) {
  try {
    owners_.release(project_id);
  } catch (const std::exception&) {
    // The next round's sweep (or the claim's expiry) removes it.
  }
}

void Gateway::releaseOwnership() {
  try {
    owners_.releaseAll();
  } catch (const std::exception& e) {
    context_.logger().warn(
        std::string("could not release this node's app claims (they expire in ") +
        std::to_string(kClaimLasts.count()) + " s): " + e.what());
  }
}

void registerGateway(berth::Registrar& r, Context& context) {
  auto gateway = std::make_shared<Gateway>(context);
  context.gateway = gateway;
  Gateway* g = gateway.get();
  berth::RouteOptions project_host;
  project_host.projectHost = true;
  auto handler = [g](const Request& request, Responder& responder) {
    g->handle(request, responder);
  };
  // "/*path" needs at least one character after the slash: "/" is a route of its own.
  r.route(berth::Method::Any, "/", handler, project_host);
  r.route(berth::Method::Any, "/*path", handler, project_host);
  registerCacheRoutes(r, context);

  context.onLiveChanged([g](const std::string& project_id) { g->liveChanged(project_id); });
  r.hook("project.secret_changed",
         [g](const nlohmann::json& payload) { g->secretChanged(payload); });
  // A secret set through another node: its NOTIFY reaches the node running the app.
  auto secret_changes = std::make_shared<SecretChanges>();
  SecretChanges::listen(r, secret_changes);
  r.job("secret_changes", std::chrono::milliseconds(200), [g, secret_changes](berth::JobContext&) {
    SecretChanges::Pending pending = secret_changes->take();
    if (!pending.empty()) g->secretsChanged(pending);
  });
  r.hook("project.deleting", [g](const nlohmann::json& payload) { g->deleting(payload); });
  r.hook("project.updated", [g](const nlohmann::json& payload) { g->updated(payload); });
  r.hook("project.domains_changed",
         [g](const nlohmann::json& payload) { g->domainsChanged(payload); });
  // Read with a parser of its own: there is one per request the edge answers.
  r.hookText("edge.access", [g](std::string_view line) { g->access(line); });

  // Scale to zero: apps without a request for idle_stop_seconds are stopped (IdleStop).
  r.job("idle_stop", std::chrono::seconds(1), [g](berth::JobContext&) { g->idleRound(); });
  // Cache settings (a PATCH), purges of other nodes and hosts that left their project reach
  // the rules within this period.
  r.job("edge_cache_refresh", std::chrono::seconds(3), [g](berth::JobContext&) { g->refresh(); });
}

void stopGateway(Context& context) {
  // Nothing runs on its own: the core has joined the jobs, and the apps stop with
  // Context::apps after this. Their claims go first, so other nodes take them at once.
  if (context.gateway) context.gateway->releaseOwnership();
}

}  // namespace berth::runtime
