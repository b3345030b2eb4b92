// SPDX-License-Identifier: MIT
/** @file
 *  berth::testing::FakeHost: the core's berth_host_api in memory, so a plugin's logic is
 *  unit-tested without berthd, a database or a network.
 *
 *      berth::testing::FakeHost host;
 *      host.load<HelloPlugin>();           // the class itself: registerAll runs for real
 *      host.start({{"greeting", "hi"}});   // config section; declared defaults fill the rest
 *      auto answer = host.call("GET", "/hello");
 *      EXPECT_EQ(answer.status, 200);
 *      EXPECT_EQ(answer.json()["greeting"], "hi");
 *
 *  What it does like the core: route matching (":param", final "*rest"), the checks of route
 *  flags (401 without a caller, 415/400/422 for JSON bodies, 413 for raw bodies), the error
 *  body {"error": ...}, waiting for async answers, refusing declarations after registration,
 *  duplicate routes, gap-free migrations, unknown config keys.
 *  What it fakes: other plugins' services (fakeService), hooks (fakeHook), installers
 *  (fakeInstaller; install() runs one as the core mediates it), accounts and plans, core settings,
 * and the database: every statement goes to a handler the test gives (onDb); without one the
 * database is unreachable.
 *
 *  Once a request is answered the fake frees it, so a plugin that touches a Request after
 *  answering shows up under AddressSanitizer, as it would crash in the core.
 */
#ifndef BERTH_TESTING_FAKE_HOST_HPP
#define BERTH_TESTING_FAKE_HOST_HPP

#include <berth/plugin.hpp>
#include <berth/util/body_fields.hpp>
#include <berth/util/percent_decode.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::testing {

/** An answer as the core would send it. */
struct FakeResponse {
  int status = 0;
  uint32_t kind = BERTH_RESPONSE_BYTES;  ///< berth_response_kind the plugin answered with
  std::string contentType;
  /** BYTES: the body; ERROR: the JSON the core writes; FILE: the path; PROXY: the port. */
  std::string body;
  Headers headers;

  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
  std::optional<std::string> header(std::string_view name) const {
    for (const auto& [key, value] : headers)
      if (equalsIgnoreCase(key, name)) return value;
    return std::nullopt;
  }
  static bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  }
};

/** A request to send through FakeHost::call. */
struct FakeRequest {
  std::string method = "GET";
  std::string target = "/";  ///< path, optionally with ?query
  std::string body;
  Headers headers;
  /** The signed-in caller; std::nullopt calls without a token. */
  std::optional<Caller> caller = Caller{"acc_test", "test@example.com", "tok_test"};
  std::string host = "api.berth.test";
  std::string peer = "127.0.0.1";
  std::string bodyFile;  ///< as if the edge had spooled the body there
};

struct FakeRoute {
  Method method;
  std::string path;
  uint32_t flags;
  uint64_t maxBodyBytes;
  std::vector<Field> fields;
  berth_route_fn fn;
  void* user;
};

struct FakeConfigKey {
  std::string name;
  uint32_t type;
  nlohmann::json defaultValue;
  int64_t min;
  int64_t max;
  std::string description;
};

struct FakeMigration {
  uint32_t version;
  std::string name;
  std::string sql;
};

struct FakeJob {
  std::string name;
  uint64_t periodMs;
  bool runOnStart;
  berth_job_fn fn;
  void* user;
};

struct FakeLogLine {
  LogLevel level;
  std::string requestId;
  std::string project;
  std::string message;
};

/** One statement the plugin ran. */
struct FakeDbCall {
  std::string sql;
  DbParams params;
  bool inSession;  ///< inside a Transaction
};

/** What the fake database answers to one statement. */
struct FakeDbAnswer {
  uint32_t status = BERTH_DB_OK;
  std::string error;
  std::string sqlstate;
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  int64_t affected = 0;

  static FakeDbAnswer ok(int64_t affected = 0) {
    FakeDbAnswer answer;
    answer.affected = affected;
    return answer;
  }
  static FakeDbAnswer table(std::vector<std::string> columns,
                            std::vector<std::vector<std::optional<std::string>>> rows) {
    FakeDbAnswer answer;
    answer.columns = std::move(columns);
    answer.rows = std::move(rows);
    return answer;
  }
  static FakeDbAnswer sqlError(std::string message, std::string sqlstate) {
    FakeDbAnswer answer;
    answer.status = BERTH_DB_SQL_ERROR;
    answer.error = std::move(message);
    answer.sqlstate = std::move(sqlstate);
    return answer;
  }
  static FakeDbAnswer unavailable() {
    FakeDbAnswer answer;
    answer.status = BERTH_DB_UNAVAILABLE;
    answer.error = "the fake host has no database";
    return answer;
  }
};

class FakeHost {
 public:
  using DbHandler = std::function<FakeDbAnswer(const FakeDbCall& call)>;

  FakeHost() { fillApi(); }
  ~FakeHost() {
    if (started_ && !stopped_) stop();
    if (instance_ != nullptr && destroy_ != nullptr) destroy_(instance_);
  }
  FakeHost(const FakeHost&) = delete;
  FakeHost& operator=(const FakeHost&) = delete;

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Constructs the plugin class and runs its registration through the SDK's real entry
   *  point. @throw std::runtime_error with what the plugin reported when it fails. */
  template <class P>
  P& load() {
    if (instance_ != nullptr) throw std::runtime_error("FakeHost: a plugin is loaded already");
    registering_ = true;
    int32_t status = detail::registerPlugin<P>(handle(), &api_);
    registering_ = false;
    if (status != BERTH_OK) throw std::runtime_error("register failed: " + reportedErrors());
    return *static_cast<P*>(static_cast<Plugin*>(instance_));
  }

  /** Sets the plugin's configuration section (declared defaults fill what is missing) and
   *  starts it. @throw std::runtime_error for an unknown key or when start() fails. */
  void start(const nlohmann::json& config = nlohmann::json::object()) {
    nlohmann::json section = nlohmann::json::object();
    for (const auto& key : configKeys_) section[key.name] = key.defaultValue;
    for (const auto& [name, value] : config.items()) {
      if (!section.contains(name))
        throw std::runtime_error("FakeHost: unknown config key \"" + name + "\"");
      section[name] = value;
    }
    configJson_ = section.dump();
    if (detail::startPlugin(handle(), instance_) != BERTH_OK)
      throw std::runtime_error("start failed: " + reportedErrors());
    started_ = true;
  }

  void stop() {
    detail::stopPlugin(handle(), instance_);
    stopped_ = true;
  }

  Plugin& plugin() { return *static_cast<Plugin*>(instance_); }
  berth_host* handle() noexcept { return reinterpret_cast<berth_host*>(this); }
  const berth_host_api* api() const noexcept { return &api_; }
  Services services() const {
    return Services(HostRef{const_cast<FakeHost*>(this)->handle(), &api_});
  }

  // ---- requests ------------------------------------------------------------------------------

  /** Sends a request to the plugin's routes and waits for the answer, async ones included.
   *  A body without a Content-Type header is sent as application/json. */
  FakeResponse call(std::string method, std::string target, std::string body = {},
                    Headers headers = {}) {
    FakeRequest request;
    request.method = std::move(method);
    request.target = std::move(target);
    request.body = std::move(body);
    request.headers = std::move(headers);
    return call(std::move(request));
  }

  FakeResponse call(FakeRequest request) {
    if (!request.body.empty() && !findHeader(request.headers, "content-type"))
      request.headers.emplace_back("Content-Type", "application/json");
    auto incoming = std::make_unique<Incoming>();
    incoming->id = "req-" + std::to_string(++requestCount_);
    size_t question = request.target.find('?');
    incoming->rawPath = request.target.substr(0, question);
    incoming->path = berth::requestPathDecoded(incoming->rawPath);
    if (question != std::string::npos) incoming->query = request.target.substr(question + 1);
    incoming->request = std::move(request);
    parseQuery(*incoming);

    bool path_known = false;
    const FakeRoute* route = nullptr;
    for (const auto& candidate : routes_) {
      std::map<std::string, std::string> params;
      if (!matchPath(candidate.path, incoming->path, params)) continue;
      path_known = true;
      if (candidate.method != Method::Any &&
          Registrar::methodName(candidate.method) != incoming->request.method)
        continue;
      route = &candidate;
      incoming->pathParams = std::move(params);
      break;
    }
    if (route == nullptr)
      return path_known ? errorResponse(405, "method not allowed") : errorResponse(404, "no route");
    if (std::optional<FakeResponse> refusal = checkFlags(*route, *incoming)) return *refusal;
    if ((route->flags & BERTH_ROUTE_PUBLIC) == 0 || incoming->request.caller)
      incoming->caller = incoming->request.caller.value_or(Caller{});

    auto exchange = std::make_shared<Exchange>();
    exchange->incoming = std::move(incoming);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      exchanges_.push_back(exchange);  // kept so that a second answer is counted, not a crash
    }
    route->fn(route->user, reinterpret_cast<const berth_request*>(exchange->incoming.get()),
              reinterpret_cast<berth_responder*>(exchange.get()));
    std::unique_lock<std::mutex> lock(exchange->mutex);
    // A safety net against a hung test, not a timing assertion.
    if (!exchange->answeredCv.wait_for(lock, std::chrono::seconds(30),
                                       [&] { return exchange->answers > 0; }))
      return FakeResponse{0, BERTH_RESPONSE_ERROR, "", "the fake host got no answer", {}};
    return exchange->response;
  }

  /** Answers sent to a request that had been answered already (should stay 0). */
  int doubleAnswers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int count = 0;
    for (const auto& exchange : exchanges_) {
      std::lock_guard<std::mutex> exchange_lock(exchange->mutex);
      count += std::max(0, exchange->answers - 1);
    }
    return count;
  }

  // ---- jobs, hooks, services, installers -------------------------------------------------------

  /** Runs one tick of a declared job, as the core's job pool would. */
  void runJob(std::string_view name, bool stopRequested = false) {
    for (const auto& job : jobs_) {
      if (job.name != name) continue;
      JobCtx context{stopRequested};
      job.fn(job.user, reinterpret_cast<berth_job_ctx*>(&context));
      return;
    }
    throw std::runtime_error("FakeHost: no job named " + std::string(name));
  }

  /** Fires an event to the hooks, as the core or another plugin would.
   *  @throw Error with the status and message of a hook that refused. */
  void fireHook(std::string_view event, const nlohmann::json& payload) {
    detail::Buffer out(&api_);
    std::string text = payload.dump();
    if (fireHookRaw(event, text, out.get()) == BERTH_ERR)
      throw detail::errorFromAnswer(out.view(), "a hook failed");
  }

  /** Calls a service (the plugin's own or a fake). @throw Error as the service answered. */
  nlohmann::json callService(std::string_view name, std::string_view method,
                             const nlohmann::json& request) {
    return services().call(name, method, request);
  }

  /** Runs an installer (the plugin's own or a fake) as the core would for the install route:
   *  the body checked against its fields (Error 422 with the core's words), then install()
   *  with a context for `project` ({"id", "name", "account_id", ...}) asked for by `caller`.
   *  Its InstallContext::call() reaches the fakeService()s it declared (else 403), with
   *  "project_id" and "account_id" set as the core sets them.
   *  @throw Error as the installer answered. */
  nlohmann::json install(std::string_view slug, const nlohmann::json& body,
                         const nlohmann::json& project, std::string caller = "caller-1") {
    nlohmann::json context = {{"project", project}, {"caller", caller}, {"request_id", "req-1"}};
    return services().runInstall(slug, context, body);
  }

  /** Where installers' payloads are (InstallContext::payloadDir() is <dir>/templates/<id>). */
  void setShareDir(std::string dir) { shareDir_ = std::move(dir); }
  /** The loaded plugin's id, as its payload folder is named (default "plugin"). */
  void setPluginId(std::string id) { pluginId_ = std::move(id); }

  /** Another plugin's service; the fake may throw berth::Error to refuse. */
  void fakeService(std::string name, ServiceFn fn) {
    detail::ServiceEntry& entry = fakeServices_.emplace_back();
    entry.host = HostRef{handle(), &api_};
    entry.name = name;
    entry.fn = std::move(fn);
    services_[std::move(name)] = {&detail::serviceTrampoline, &entry};
  }

  /** Another plugin's hook on an event; throw berth::Error to refuse. */
  void fakeHook(std::string event, HookFn fn) {
    detail::HookEntry& entry = fakeHooks_.emplace_back();
    entry.host = HostRef{handle(), &api_};
    entry.event = event;
    entry.fn = std::move(fn);
    hooks_.push_back({std::move(event), &detail::hookTrampoline, &entry});
  }

  /** Another plugin's answering hook (Registrar::hookAnswer); throw berth::Error to refuse. */
  void fakeHookAnswer(std::string event, HookAnswerFn fn) {
    detail::HookEntry& entry = fakeHooks_.emplace_back();
    entry.host = HostRef{handle(), &api_};
    entry.event = event;
    entry.answer_fn = std::move(fn);
    hooks_.push_back({std::move(event), &detail::hookTrampoline, &entry});
  }

  /** Another plugin's installer (for a plugin that lists or runs installers). */
  void fakeInstaller(std::shared_ptr<Installer> installer, std::string owner = "fake") {
    detail::AppInstallerEntry& entry = fakeInstallers_.emplace_back();
    entry.host = HostRef{handle(), &api_};
    entry.installer = std::move(installer);
    entry.info = entry.installer->info();
    InstallerRecord record;
    record.owner = std::move(owner);
    record.info = entry.info;
    record.fn = &detail::appInstallerTrampoline;
    record.user = &entry;
    installers_.push_back(std::move(record));
  }

  /** Events the plugin fired, in order. */
  std::vector<std::pair<std::string, nlohmann::json>> firedEvents() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return fired_;
  }

  // ---- the core's data -------------------------------------------------------------------------

  void addAccount(Account account) {
    std::lock_guard<std::mutex> lock(mutex_);
    accounts_.push_back(std::move(account));
  }
  /** Makes the user a member of a team (the team's role field is the user's role there). */
  void addMembership(std::string userAccountId, Account team) {
    std::lock_guard<std::mutex> lock(mutex_);
    memberships_[std::move(userAccountId)].push_back(std::move(team));
  }
  /** std::nullopt: the plan sets no limit. Plans never set are unknown. */
  void setPlanLimit(std::string plan, std::optional<int64_t> limit) {
    std::lock_guard<std::mutex> lock(mutex_);
    planLimits_[std::move(plan)] = limit;
  }
  void setCoreSetting(std::string key, std::string value) {
    std::lock_guard<std::mutex> lock(mutex_);
    coreSettings_[std::move(key)] = std::move(value);
  }

  /** Answers every statement (BEGIN, COMMIT and ROLLBACK are answered by the fake itself). */
  void onDb(DbHandler handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    db_ = std::move(handler);
  }
  std::vector<FakeDbCall> dbCalls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return dbCalls_;
  }
  /** Results and sessions the plugin has not freed yet (should be 0 between requests). */
  int openDbResults() const { return openResults_; }
  int openDbSessions() const { return openSessions_; }

  // ---- what the plugin declared and did ---------------------------------------------------------

  const std::vector<FakeRoute>& routes() const noexcept { return routes_; }
  const std::vector<FakeConfigKey>& configKeys() const noexcept { return configKeys_; }
  const std::vector<FakeMigration>& migrations() const noexcept { return migrations_; }
  const std::vector<FakeJob>& jobs() const noexcept { return jobs_; }
  std::vector<std::string> hookEvents() const {
    std::vector<std::string> events;
    for (const auto& hook : hooks_) events.push_back(hook.event);
    return events;
  }
  std::vector<std::string> serviceNames() const {
    std::vector<std::string> names;
    for (const auto& [name, service] : services_) names.push_back(name);
    return names;
  }
  std::vector<std::string> installerSlugs() const {
    std::vector<std::string> slugs;
    for (const auto& installer : installers_) slugs.push_back(installer.info.slug);
    return slugs;
  }
  std::vector<FakeLogLine> logs() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return logs_;
  }
  bool logged(std::string_view text) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::any_of(logs_.begin(), logs_.end(), [&](const FakeLogLine& line) {
      return line.message.find(text) != std::string::npos;
    });
  }
  /** Messages the plugin gave report_error. */
  std::vector<std::string> errors() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }
  std::vector<std::string> customHosts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return customHosts_;
  }
  /** The rules the plugin last gave Services::setEdgeCache. */
  std::vector<EdgeCacheRule> edgeCacheRules() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return edgeCacheRules_;
  }

 private:
  struct Incoming {
    FakeRequest request;
    std::string id, path, rawPath, query;
    std::vector<std::pair<std::string, std::string>> queryParams;
    std::vector<std::string> queryPairs;  // "name=value", for BERTH_REQ_QUERY_PARAM_AT
    std::map<std::string, std::string> pathParams;
    std::optional<Caller> caller;
  };
  struct Exchange {
    std::mutex mutex;
    std::condition_variable answeredCv;
    std::unique_ptr<Incoming> incoming;  // freed once answered: the ABI's LIFETIME rule
    int answers = 0;
    FakeResponse response;
  };
  struct JobCtx {
    bool stopRequested;
  };
  struct Buffer {
    std::string data;
  };
  struct DbResultData {
    FakeHost* owner;
    FakeDbAnswer answer;
  };
  struct Session {
    FakeHost* owner;
  };
  struct HookRecord {
    std::string event;
    berth_hook_fn fn;
    void* user;
  };
  struct ServiceRecord {
    berth_service_fn fn;
    void* user;
  };
  struct InstallerRecord {
    std::string owner;
    InstallerInfo info;
    berth_app_install_fn fn = nullptr;
    void* user = nullptr;
  };
  /** What the core makes for one install; the fake's berth_install_ctx. */
  struct InstallCtx {
    FakeHost* host;
    const InstallerRecord* installer;
    std::string contextJson;
    std::string projectId, accountId, projectName, requestId;
  };

  static std::vector<detail::FieldView> fieldViews(const std::vector<Field>& fields) {
    std::vector<detail::FieldView> views;
    for (const Field& field : fields)
      views.push_back({field.name, static_cast<uint32_t>(field.type), field.required});
    return views;
  }

  std::string missingService(const InstallerRecord& record) const {
    for (const std::string& service : record.info.services)
      if (services_.find(service) == services_.end()) return service;
    return "";
  }

  int32_t answerError(berth_buffer* out, int status, const std::string& message) {
    api_.buffer_append(
        out, detail::toStr(nlohmann::json{{"status", status}, {"error", message}}.dump()));
    return BERTH_ERR;
  }

  int32_t runInstall(std::string_view slug, std::string_view contextText, std::string_view body,
                     berth_buffer* out) {
    const InstallerRecord* record = nullptr;
    for (const auto& candidate : installers_)
      if (candidate.info.slug == slug) record = &candidate;
    if (record == nullptr)
      return answerError(out, 404, "no app template named " + std::string(slug));
    if (std::string missing = missingService(*record); !missing.empty())
      return answerError(out, 503,
                         "the app template " + record->info.slug + " needs the service " + missing +
                             ", which no loaded plugin offers");
    nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
    if (parsed.is_discarded()) return answerError(out, 400, "the body is not valid JSON");
    if (auto problem = detail::bodyFieldProblem(parsed, fieldViews(record->info.fields)))
      return answerError(out, 422, *problem);
    nlohmann::json context = nlohmann::json::parse(contextText, nullptr, false);
    if (!context.is_object() || !context.contains("project") || !context["project"].is_object())
      return answerError(out, 400, "an install needs a project");
    std::string owner = record->owner.empty() ? "plugin" : record->owner;
    context["installer"] = {{"slug", record->info.slug}, {"version", record->info.version}};
    context["payload_dir"] = shareDir_ + "/templates/" + owner;
    InstallCtx ctx{this,
                   record,
                   context.dump(),
                   context["project"].value("id", ""),
                   context.value("caller", ""),
                   context["project"].value("name", ""),
                   context.value("request_id", "")};
    return record->fn(record->user, reinterpret_cast<berth_install_ctx*>(&ctx), detail::toStr(body),
                      out);
  }

  static FakeHost& self(berth_host* host) { return *reinterpret_cast<FakeHost*>(host); }
  static std::string copy(berth_str s) { return std::string(detail::toView(s)); }

  /** Everything reported, oldest first: the host's reason, then the plugin's. */
  std::string reportedErrors() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string all;
    for (const auto& error : errors_) all += (all.empty() ? "" : "; ") + error;
    return all.empty() ? std::string("(no message)") : all;
  }
  int32_t refuse(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_.push_back(why);
    return BERTH_ERR;
  }

  static std::optional<std::string> findHeader(const Headers& headers, std::string_view name) {
    for (const auto& [key, value] : headers)
      if (FakeResponse::equalsIgnoreCase(key, name)) return value;
    return std::nullopt;
  }

  static FakeResponse errorResponse(int status, std::string_view message,
                                    const nlohmann::json& extra = nullptr) {
    nlohmann::json body = extra.is_object() ? extra : nlohmann::json::object();
    body["error"] = std::string(message);
    return FakeResponse{status, BERTH_RESPONSE_ERROR, "application/json", body.dump(), {}};
  }
  /** 415 and 422 come from the HTTP layer as plain text. */
  static FakeResponse plainResponse(int status, std::string text) {
    return FakeResponse{status, BERTH_RESPONSE_BYTES, "text/plain", std::move(text), {}};
  }

  // The core's decoding, the SDK's (berth/util/percent_decode.hpp): a malformed escape leaves
  // the whole path, or the whole name or value, as sent.
  static void parseQuery(Incoming& incoming) {
    for (auto& [name, value] : berth::requestQueryDecoded(incoming.query)) {
      incoming.queryPairs.push_back(name + "=" + value);
      incoming.queryParams.emplace_back(std::move(name), std::move(value));
    }
  }

  static std::vector<std::string_view> segments(std::string_view path) {
    std::vector<std::string_view> parts;
    size_t start = path.empty() || path[0] != '/' ? 0 : 1;
    while (start <= path.size()) {
      size_t slash = path.find('/', start);
      if (slash == std::string_view::npos) slash = path.size();
      parts.push_back(path.substr(start, slash - start));
      start = slash + 1;
    }
    return parts;
  }

  static bool matchPath(std::string_view pattern, std::string_view path,
                        std::map<std::string, std::string>& params) {
    std::vector<std::string_view> want = segments(pattern);
    std::vector<std::string_view> have = segments(path);
    for (size_t i = 0; i < want.size(); ++i) {
      if (!want[i].empty() && want[i][0] == '*' && i + 1 == want.size()) {
        std::string rest;
        for (size_t j = i; j < have.size(); ++j) rest += (j > i ? "/" : "") + std::string(have[j]);
        params[std::string(want[i].substr(1))] = rest;
        return true;
      }
      if (i >= have.size()) return false;
      if (!want[i].empty() && want[i][0] == ':') {
        if (have[i].empty()) return false;
        params[std::string(want[i].substr(1))] = std::string(have[i]);
      } else if (want[i] != have[i]) {
        return false;
      }
    }
    return want.size() == have.size();
  }

  std::optional<FakeResponse> checkFlags(const FakeRoute& route, const Incoming& incoming) const {
    const FakeRequest& request = incoming.request;
    if ((route.flags & BERTH_ROUTE_PUBLIC) == 0 && !request.caller)
      return errorResponse(401, "sign in first");
    if (route.flags & BERTH_ROUTE_RAW_BODY) {
      uint64_t limit = route.maxBodyBytes != 0 ? route.maxBodyBytes : 2u * 1024 * 1024;
      if (request.body.size() > limit) return errorResponse(413, "the body is too large");
    }
    if ((route.flags & BERTH_ROUTE_JSON_BODY) == 0) return std::nullopt;
    std::string type = findHeader(request.headers, "content-type").value_or("");
    if (type.rfind("application/json", 0) != 0)
      return plainResponse(415, "Content-Type must be application/json");
    nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    if (body.is_discarded()) return errorResponse(400, "the body is not valid JSON");
    if (auto problem = detail::bodyFieldProblem(body, fieldViews(route.fields)))
      return plainResponse(422, *problem);
    return std::nullopt;
  }

  // As the core fires: the first refusal stops it; else the answers given, as a JSON array.
  int32_t fireHookRaw(std::string_view event, std::string_view payload, berth_buffer* out) {
    std::string answers;
    for (const auto& hook : hooks_) {
      if (hook.event != event) continue;
      Buffer answer;
      int32_t status = hook.fn(hook.user, detail::toStr(event), detail::toStr(payload),
                               reinterpret_cast<berth_buffer*>(&answer));
      if (status != BERTH_OK) {
        api_.buffer_append(out, detail::toStr(answer.data));
        return BERTH_ERR;
      }
      if (!answer.data.empty()) answers += (answers.empty() ? "[" : ",") + answer.data;
    }
    if (!answers.empty()) api_.buffer_append(out, detail::toStr(answers + "]"));
    return BERTH_OK;
  }

  static berth_str requestPart(const Incoming& in, uint32_t part, std::string_view name) {
    auto view = [](const std::string& s) { return detail::toStr(s); };
    auto lookup = [&](const std::map<std::string, std::string>& map) {
      auto it = map.find(std::string(name));
      return it == map.end() ? detail::absentStr() : view(it->second);
    };
    switch (part) {
      case BERTH_REQ_METHOD:
        return view(in.request.method);
      case BERTH_REQ_PATH:
        return view(in.path);
      case BERTH_REQ_RAW_PATH:
        return view(in.rawPath);
      case BERTH_REQ_QUERY:
        return view(in.query);
      case BERTH_REQ_QUERY_PARAM:
        for (const auto& [key, value] : in.queryParams)
          if (key == name) return view(value);
        return detail::absentStr();
      case BERTH_REQ_QUERY_PARAM_AT: {
        size_t index = 0;
        for (char c : name) {
          if (c < '0' || c > '9') return detail::absentStr();
          index = index * 10 + static_cast<size_t>(c - '0');
        }
        return !name.empty() && index < in.queryPairs.size() ? view(in.queryPairs[index])
                                                             : detail::absentStr();
      }
      case BERTH_REQ_PATH_PARAM:
        return lookup(in.pathParams);
      case BERTH_REQ_HEADER:
        for (const auto& [key, value] : in.request.headers)
          if (FakeResponse::equalsIgnoreCase(key, name)) return view(value);
        return detail::absentStr();
      case BERTH_REQ_BODY:
        return in.request.bodyFile.empty() ? view(in.request.body) : detail::toStr("");
      case BERTH_REQ_BODY_FILE:
        return in.request.bodyFile.empty() ? detail::absentStr() : view(in.request.bodyFile);
      case BERTH_REQ_HOST:
        return view(in.request.host);
      case BERTH_REQ_ID:
        return view(in.id);
      case BERTH_REQ_ACCOUNT_ID:
        return in.caller ? view(in.caller->accountId) : detail::absentStr();
      case BERTH_REQ_ACCOUNT_EMAIL:
        return in.caller ? view(in.caller->email) : detail::absentStr();
      case BERTH_REQ_TOKEN_ID:
        return in.caller ? view(in.caller->tokenId) : detail::absentStr();
      case BERTH_REQ_PEER:
        return view(in.request.peer);
      default:
        return detail::absentStr();
    }
  }

  static void respond(berth_responder* handle, const berth_response* raw) {
    auto* exchange = reinterpret_cast<Exchange*>(handle);
    std::lock_guard<std::mutex> lock(exchange->mutex);
    if (++exchange->answers > 1) return;
    FakeResponse& response = exchange->response;
    response.status = raw->status;
    response.kind = raw->kind;
    response.contentType = copy(raw->content_type);
    for (size_t i = 0; i < raw->header_count; ++i)
      response.headers.emplace_back(copy(raw->headers[i].name), copy(raw->headers[i].value));
    if (raw->kind == BERTH_RESPONSE_ERROR) {
      nlohmann::json extra =
          nlohmann::json::parse(detail::toView(raw->error_extra_json), nullptr, false);
      FakeResponse error = errorResponse(raw->status, detail::toView(raw->body),
                                         extra.is_discarded() ? nlohmann::json() : extra);
      response.body = error.body;
      response.contentType = error.contentType;
    } else {
      response.body = copy(raw->body);
    }
    exchange->incoming.reset();
    exchange->answeredCv.notify_all();
  }

  berth_db_result* execDb(bool inSession, berth_str sql, const berth_str* params, size_t count) {
    FakeDbCall call{copy(sql), {}, inSession};
    for (size_t i = 0; i < count; ++i) call.params.push_back(detail::toOptional(params[i]));
    DbHandler handler;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dbCalls_.push_back(call);
      handler = db_;
    }
    auto result = std::make_unique<DbResultData>();
    result->owner = this;
    if (call.sql == "BEGIN" || call.sql == "COMMIT" || call.sql == "ROLLBACK") {
      result->answer = handler ? FakeDbAnswer::ok() : FakeDbAnswer::unavailable();
    } else if (!handler) {
      result->answer = FakeDbAnswer::unavailable();
    } else {
      try {
        result->answer = handler(call);
      } catch (const std::exception& error) {
        result->answer = FakeDbAnswer::sqlError(error.what(), "XX000");
      }
    }
    ++openResults_;
    return reinterpret_cast<berth_db_result*>(result.release());
  }

  static const FakeDbAnswer& answerOf(const berth_db_result* result) {
    return reinterpret_cast<const DbResultData*>(result)->answer;
  }

  void fillApi() {
    api_.struct_size = sizeof(berth_host_api);
    api_.abi_major = BERTH_ABI_MAJOR;
    api_.abi_minor = BERTH_ABI_MINOR;
    api_.log = [](berth_host* h, uint32_t level, berth_str id, berth_str project, berth_str m) {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      host.logs_.push_back({static_cast<LogLevel>(level), copy(id), copy(project), copy(m)});
    };
    api_.report_error = [](berth_host* h, berth_str message) {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      host.errors_.push_back(copy(message));
    };
    api_.declare_config = [](berth_host* h, const berth_config_key* key) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      std::string name = copy(key->name);
      for (const auto& known : host.configKeys_)
        if (known.name == name) return host.refuse("config key " + name + " is declared twice");
      nlohmann::json value =
          nlohmann::json::parse(detail::toView(key->default_json), nullptr, false);
      if (value.is_discarded()) return host.refuse("config key " + name + ": bad default");
      host.configKeys_.push_back(
          {name, key->type, value, key->min, key->max, copy(key->description)});
      return BERTH_OK;
    };
    api_.add_route = [](berth_host* h, const berth_route* route) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      std::string path = copy(route->path);
      auto method = static_cast<Method>(route->method);
      if (path.empty() || path[0] != '/') return host.refuse("a route path starts with /");
      for (const auto& known : host.routes_)
        if (known.method == method && known.path == path)
          return host.refuse(std::string("route ") + Registrar::methodName(method) + " " + path +
                             " is declared twice");
      std::vector<Field> fields;
      for (size_t i = 0; i < route->field_count; ++i)
        fields.push_back({copy(route->fields[i].name),
                          static_cast<FieldType>(route->fields[i].type),
                          route->fields[i].required != 0});
      host.routes_.push_back({method, path, route->flags, route->max_body_bytes, std::move(fields),
                              route->fn, route->user});
      return BERTH_OK;
    };
    api_.add_migration = [](berth_host* h, uint32_t version, berth_str name,
                            berth_str sql) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      if (version != host.migrations_.size() + 1)
        return host.refuse("migration " + std::to_string(version) + " is out of order");
      host.migrations_.push_back({version, copy(name), copy(sql)});
      return BERTH_OK;
    };
    api_.add_job = [](berth_host* h, const berth_job* job) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      if (job->period_ms == 0) return host.refuse("a job needs a period");
      host.jobs_.push_back(
          {copy(job->name), job->period_ms, job->run_on_start != 0, job->fn, job->user});
      return BERTH_OK;
    };
    api_.add_hook = [](berth_host* h, berth_str event, berth_hook_fn fn, void* user) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      host.hooks_.push_back({copy(event), fn, user});
      return BERTH_OK;
    };
    api_.offer_service = [](berth_host* h, berth_str name, berth_service_fn fn,
                            void* user) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      if (!host.services_.emplace(copy(name), ServiceRecord{fn, user}).second)
        return host.refuse("service " + copy(name) + " is offered twice");
      return BERTH_OK;
    };
    api_.add_installer = [](berth_host* h, const berth_installer*) -> int32_t {
      return self(h).refuse("installers of ABI 1.0 are not run; declare a berth::Installer");
    };
    api_.add_app_installer = [](berth_host* h, const berth_app_installer* raw) -> int32_t {
      FakeHost& host = self(h);
      if (!host.registering_) return host.refuse("registration is closed");
      InstallerRecord record;
      record.owner = host.pluginId_;
      record.info.slug = copy(raw->slug);
      record.info.name = copy(raw->name);
      record.info.description = copy(raw->description);
      record.info.version = copy(raw->version);
      nlohmann::json services = nlohmann::json::parse(copy(raw->requires_json), nullptr, false);
      if (services.is_array())
        for (const auto& service : services)
          if (service.is_string()) record.info.services.push_back(service.get<std::string>());
      for (size_t i = 0; i < raw->field_count; ++i)
        record.info.fields.push_back(Field{copy(raw->fields[i].name),
                                           static_cast<FieldType>(raw->fields[i].type),
                                           raw->fields[i].required != 0});
      record.fn = raw->fn;
      record.user = raw->user;
      for (const auto& other : host.installers_)
        if (other.info.slug == record.info.slug)
          return host.refuse("installer " + record.info.slug + " is declared twice");
      host.installers_.push_back(std::move(record));
      return BERTH_OK;
    };
    api_.set_instance = [](berth_host* h, void* instance, void (*destroy)(void*)) {
      FakeHost& host = self(h);
      host.instance_ = instance;
      host.destroy_ = destroy;
    };
    api_.config_json = [](berth_host* h) { return detail::toStr(self(h).configJson_); };
    api_.core_setting = [](berth_host* h, berth_str key) {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      auto it = host.coreSettings_.find(copy(key));
      // The map's nodes stay put, so the view outlives the lock.
      return it == host.coreSettings_.end() ? detail::absentStr() : detail::toStr(it->second);
    };
    api_.req_get = [](const berth_request* request, uint32_t part, berth_str name) {
      return requestPart(*reinterpret_cast<const Incoming*>(request), part, detail::toView(name));
    };
    api_.respond = &FakeHost::respond;
    api_.buffer_new = []() { return reinterpret_cast<berth_buffer*>(new Buffer()); };
    api_.buffer_append = [](berth_buffer* buffer, berth_str bytes) {
      reinterpret_cast<Buffer*>(buffer)->data.append(detail::toView(bytes));
    };
    api_.buffer_view = [](const berth_buffer* buffer) {
      return detail::toStr(reinterpret_cast<const Buffer*>(buffer)->data);
    };
    api_.buffer_free = [](berth_buffer* buffer) { delete reinterpret_cast<Buffer*>(buffer); };
    api_.call_service = [](berth_host* h, berth_str name, berth_str method, berth_str request,
                           berth_buffer* out) -> int32_t {
      FakeHost& host = self(h);
      auto it = host.services_.find(copy(name));
      if (it == host.services_.end()) return BERTH_ERR_NOT_FOUND;
      return it->second.fn(it->second.user, method, request, out);
    };
    api_.fire_hook = [](berth_host* h, berth_str event, berth_str payload,
                        berth_buffer* out) -> int32_t {
      FakeHost& host = self(h);
      {
        std::lock_guard<std::mutex> lock(host.mutex_);
        host.fired_.emplace_back(copy(event),
                                 nlohmann::json::parse(detail::toView(payload), nullptr, false));
      }
      return host.fireHookRaw(detail::toView(event), detail::toView(payload), out);
    };
    api_.list_installers = [](berth_host*, berth_installer_visit_fn, void*) {};
    api_.list_app_installers = [](berth_host* h, berth_app_installer_visit_fn visit,
                                  void* context) {
      FakeHost& host = self(h);
      for (const auto& record : host.installers_) {
        std::vector<berth_field> fields = detail::rawFields(record.info.fields);
        berth_app_installer raw = detail::rawInstaller(record.info, fields, "[]");
        std::string missing = host.missingService(record);
        visit(context, &raw, detail::toStr(record.owner), detail::toStr(missing));
      }
    };
    api_.run_app_install = [](berth_host* h, berth_str slug, berth_str context, berth_str body,
                              berth_buffer* out) -> int32_t {
      return self(h).runInstall(detail::toView(slug), detail::toView(context), detail::toView(body),
                                out);
    };
    api_.install_context = [](berth_install_ctx* raw) {
      return detail::toStr(reinterpret_cast<InstallCtx*>(raw)->contextJson);
    };
    api_.install_call = [](berth_install_ctx* raw, berth_str service, berth_str method,
                           berth_str request, berth_buffer* out) -> int32_t {
      auto* ctx = reinterpret_cast<InstallCtx*>(raw);
      FakeHost& host = *ctx->host;
      const std::vector<std::string>& declared = ctx->installer->info.services;
      if (std::find(declared.begin(), declared.end(), copy(service)) == declared.end())
        return host.answerError(out, 403,
                                "the installer " + ctx->installer->info.slug +
                                    " did not declare the service " + copy(service));
      nlohmann::json parsed = detail::toView(request).empty()
                                  ? nlohmann::json::object()
                                  : nlohmann::json::parse(detail::toView(request), nullptr, false);
      if (!parsed.is_object())
        return host.answerError(out, 400, "the request is not a JSON object");
      parsed["project_id"] = ctx->projectId;
      parsed["account_id"] = ctx->accountId;
      std::string text = parsed.dump();
      auto it = host.services_.find(copy(service));
      if (it == host.services_.end())
        return host.answerError(out, 503, "no plugin offers the service " + copy(service));
      return it->second.fn(it->second.user, method, detail::toStr(text), out);
    };
    api_.install_log = [](berth_install_ctx* raw, uint32_t level, berth_str message) {
      auto* ctx = reinterpret_cast<InstallCtx*>(raw);
      std::lock_guard<std::mutex> lock(ctx->host->mutex_);
      ctx->host->logs_.push_back(
          {static_cast<LogLevel>(level), ctx->requestId, ctx->projectName, copy(message)});
    };
    api_.account_get = [](berth_host* h, berth_str idOrSlug, berth_account_visit_fn visit,
                          void* context) -> int32_t {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      for (const auto& account : host.accounts_) {
        if (account.id != detail::toView(idOrSlug) && account.slug != detail::toView(idOrSlug))
          continue;
        visitAccount(account, Role::Owner, visit, context);
        return BERTH_OK;
      }
      return BERTH_ERR_NOT_FOUND;
    };
    api_.account_memberships = [](berth_host* h, berth_str userId, berth_account_visit_fn visit,
                                  void* context) -> int32_t {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      for (const auto& account : host.accounts_)
        if (account.id == detail::toView(userId))
          visitAccount(account, Role::Owner, visit, context);
      auto it = host.memberships_.find(copy(userId));
      if (it != host.memberships_.end())
        for (const auto& team : it->second) visitAccount(team, team.role, visit, context);
      return BERTH_OK;
    };
    api_.plan_project_limit = [](berth_host* h, berth_str plan) -> int64_t {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      auto it = host.planLimits_.find(copy(plan));
      if (it == host.planLimits_.end()) return -2;
      return it->second ? *it->second : -1;
    };
    api_.db_session_open = [](berth_host* h, berth_db_session** out) -> int32_t {
      FakeHost& host = self(h);
      *out = nullptr;
      {
        std::lock_guard<std::mutex> lock(host.mutex_);
        if (!host.db_) return BERTH_ERR;
      }
      ++host.openSessions_;
      *out = reinterpret_cast<berth_db_session*>(new Session{&host});
      return BERTH_OK;
    };
    api_.db_session_close = [](berth_db_session* session) {
      std::unique_ptr<Session> owned(reinterpret_cast<Session*>(session));
      --owned->owner->openSessions_;
    };
    api_.db_exec = [](berth_host* h, berth_db_session* session, berth_str sql,
                      const berth_str* params, size_t count) {
      return self(h).execDb(session != nullptr, sql, params, count);
    };
    api_.db_result_status = [](const berth_db_result* r) { return answerOf(r).status; };
    api_.db_result_error = [](const berth_db_result* r) {
      return detail::toStr(answerOf(r).error);
    };
    api_.db_result_sqlstate = [](const berth_db_result* r) {
      return detail::toStr(answerOf(r).sqlstate);
    };
    api_.db_result_rows = [](const berth_db_result* r) {
      return static_cast<int64_t>(answerOf(r).rows.size());
    };
    api_.db_result_columns = [](const berth_db_result* r) {
      return static_cast<int32_t>(answerOf(r).columns.size());
    };
    api_.db_result_column_name = [](const berth_db_result* r, int32_t column) {
      const FakeDbAnswer& answer = answerOf(r);
      if (column < 0 || static_cast<size_t>(column) >= answer.columns.size())
        return detail::absentStr();
      return detail::toStr(answer.columns[static_cast<size_t>(column)]);
    };
    api_.db_result_value = [](const berth_db_result* r, int64_t row, int32_t column) {
      const FakeDbAnswer& answer = answerOf(r);
      if (row < 0 || static_cast<size_t>(row) >= answer.rows.size() || column < 0)
        return detail::absentStr();
      const auto& cells = answer.rows[static_cast<size_t>(row)];
      if (static_cast<size_t>(column) >= cells.size() || !cells[static_cast<size_t>(column)])
        return detail::absentStr();
      return detail::toStr(*cells[static_cast<size_t>(column)]);
    };
    api_.db_result_affected = [](const berth_db_result* r) { return answerOf(r).affected; };
    api_.db_result_free = [](berth_db_result* r) {
      std::unique_ptr<DbResultData> owned(reinterpret_cast<DbResultData*>(r));
      --owned->owner->openResults_;
    };
    api_.job_stop_requested = [](const berth_job_ctx* context) -> int32_t {
      return reinterpret_cast<const JobCtx*>(context)->stopRequested ? 1 : 0;
    };
    api_.set_custom_hosts = [](berth_host* h, const berth_str* hosts, size_t count) -> int32_t {
      FakeHost& host = self(h);
      std::lock_guard<std::mutex> lock(host.mutex_);
      host.customHosts_.clear();
      for (size_t i = 0; i < count; ++i) host.customHosts_.push_back(copy(hosts[i]));
      return BERTH_OK;
    };
    api_.set_edge_cache = [](berth_host* h, const berth_edge_cache_rule* rules,
                             size_t count) -> int32_t {
      FakeHost& host = self(h);
      std::vector<EdgeCacheRule> taken;
      for (size_t i = 0; i < count; ++i) {
        EdgeCacheRule rule{copy(rules[i].host), copy(rules[i].key), rules[i].ttl_seconds};
        if (!detail::edgeCacheRuleProblem(rule).empty()) return BERTH_ERR;  // as the core does
        taken.push_back(std::move(rule));
      }
      std::lock_guard<std::mutex> lock(host.mutex_);
      host.edgeCacheRules_ = std::move(taken);
      return BERTH_OK;
    };
  }

  static void visitAccount(const Account& account, Role role, berth_account_visit_fn visit,
                           void* context) {
    berth_account raw{detail::toStr(account.id),
                      detail::toStr(account.slug),
                      account.email.empty() ? detail::absentStr() : detail::toStr(account.email),
                      detail::toStr(account.plan),
                      account.isTeam ? 1u : 0u,
                      static_cast<uint32_t>(role),
                      account.createdAt};
    visit(context, &raw);
  }

  berth_host_api api_{};
  void* instance_ = nullptr;
  void (*destroy_)(void*) = nullptr;
  bool registering_ = false;
  bool started_ = false;
  bool stopped_ = false;
  std::string configJson_ = "{}";

  std::vector<FakeRoute> routes_;
  std::vector<FakeConfigKey> configKeys_;
  std::vector<FakeMigration> migrations_;
  std::vector<FakeJob> jobs_;
  std::vector<HookRecord> hooks_;
  std::map<std::string, ServiceRecord, std::less<>> services_;
  std::vector<InstallerRecord> installers_;
  std::deque<detail::ServiceEntry> fakeServices_;
  std::deque<detail::HookEntry> fakeHooks_;
  std::deque<detail::AppInstallerEntry> fakeInstallers_;
  std::string shareDir_ = "/usr/share/berth";
  std::string pluginId_ = "plugin";

  mutable std::mutex mutex_;  // guards what handlers on other threads may touch
  std::vector<std::shared_ptr<Exchange>> exchanges_;
  std::vector<FakeLogLine> logs_;
  std::vector<std::string> errors_;
  std::vector<std::pair<std::string, nlohmann::json>> fired_;
  std::vector<Account> accounts_;
  std::map<std::string, std::vector<Account>> memberships_;
  std::map<std::string, std::optional<int64_t>> planLimits_;
  std::map<std::string, std::string> coreSettings_;
  std::vector<std::string> customHosts_;
  std::vector<EdgeCacheRule> edgeCacheRules_;
  DbHandler db_;
  std::vector<FakeDbCall> dbCalls_;
  std::atomic<int> openResults_{0};
  std::atomic<int> openSessions_{0};
  std::atomic<uint64_t> requestCount_{0};
};

}  // namespace berth::testing

#endif  // BERTH_TESTING_FAKE_HOST_HPP
