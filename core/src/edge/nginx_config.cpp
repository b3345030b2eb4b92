// Renders nginx.conf for the edge. nginx does the byte moving; everything here exists so that
// berthd sees one well-formed request per client request, with the facts it needs in headers.
#include "edge/nginx_config.hpp"

#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "http/body_checks.hpp"
#include "util/process.hpp"

namespace berth::core {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
// Idle upstream connections kept per worker, to berthd and to each app (see appMaps).
constexpr int kUpstreamKeepalive = 128;
constexpr const char* kAppNotAnswering = "the app is not answering; try again";

// Host names are pasted into the config, so anything but a plain DNS name is refused rather
// than escaped: a stray ';' or '{' would otherwise inject directives.
void checkHostName(const std::string& host, const std::string& what) {
  bool ok = !host.empty() && host.size() <= 253 && host.front() != '.' && host.front() != '-';
  for (char c : host) {
    bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                   (c >= 'A' && c <= 'Z');
    ok = ok && allowed;
  }
  if (!ok) throw std::invalid_argument(what + " is not a valid host name: '" + host + "'");
}

std::string lowercase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string escapeRegex(const std::string& literal) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : literal) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// nginx wants IPv6 hosts in brackets; "*" and "0.0.0.0" mean every address.
std::string listenDirectiveAddress(const ListenAddress& address) {
  std::string host = address.host;
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  if (host.empty()) host = "*";
  return host + ":" + std::to_string(address.port);
}

// The quoted text of a `return`: a JSON object whose message needs no JSON escaping, and
// whose single quotes are escaped for nginx's single-quoted string.
std::string jsonError(const std::string& message) {
  std::string quoted = "'{\"error\":\"";
  for (char c : message) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"}'";
}

std::string userDirective(const std::string& user) {
  std::string group;
  // nginx would use a group named like the user, which Debian's "nobody" does not have.
  if (auto ids = lookupUser(user)) {
    std::vector<char> buffer(4096);
    ::group* found = nullptr;
    ::group entry{};
    if (::getgrgid_r(ids->gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
      group = entry.gr_name;
    }
  }
  return "user " + user + (group.empty() ? "" : " " + group) + ";\n";
}

// Rules reach the renderer already checked; this refuses any that is not, or a key (host,
// prefix) given twice, rather than render it.
template <class Rule, class Check, class Key>
void requireNormalOnce(const std::vector<Rule>& rules, const std::string& what, Check check,
                       Key key) {
  std::set<std::string> seen;
  for (const Rule& rule : rules) {
    if (check(rule) != rule)
      throw std::invalid_argument(what + " rule for '" + key(rule) + "' is not normalised");
    if (!seen.insert(key(rule)).second)
      throw std::invalid_argument(what + " '" + key(rule) + "' has two rules");
  }
}

class ConfigWriter {
 public:
  explicit ConfigWriter(const EdgeLayout& layout) : layout_(layout) {}

  std::string render() {
    for (const auto& host : layout_.custom_hosts) checkHostName(host, "custom host");
    checkHostName(layout_.apps_domain, "apps_domain");
    requireNormalOnce(layout_.cache_rules, "edge cache", checkedEdgeCacheRule,
                      [](const EdgeCacheRule& rule) { return rule.host; });
    requireNormalOnce(
        layout_.files_rules, "edge files",
        [&](const EdgeFilesRule& rule) { return checkedEdgeFilesRule(rule, layout_.data_dir); },
        [](const EdgeFilesRule& rule) { return rule.prefix; });
    requireNormalOnce(layout_.app_rules, "edge app", checkedEdgeAppRule,
                      [](const EdgeAppRule& rule) { return rule.host; });
    checkEdgeProof(layout_.edge_proof);
    checkEdgeProof(layout_.forward_proof);
    main();
    out_ << "http {\n";
    http();
    apiServer();
    projectServer();
    if (layout_.pin_port != 0) pinServer();
    out_ << "}\n";
    return out_.str();
  }

 private:
  // Pasted into the config: hex only (empty renders a config whose requests berthd refuses).
  static void checkEdgeProof(const std::string& proof) {
    for (char c : proof)
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
        throw std::invalid_argument("the edge proof must be lower-case hex");
  }

  void line(int depth, const std::string& text) {
    out_ << std::string(static_cast<size_t>(depth) * 2, ' ') << text << "\n";
  }

  void main() {
    const auto& run = layout_.runtime_dir;
    line(0, "# Generated by berthd; rewritten on every start and routing change.");
    line(0, "daemon off;");
    line(0, "master_process on;");
    line(0, "worker_processes " + std::to_string(std::max(1, layout_.worker_processes)) + ";");
    // Old workers of a reload keep long requests (websockets, held wake-ups) only this long.
    line(0, "worker_shutdown_timeout 30s;");
    if (!layout_.worker_user.empty()) out_ << userDirective(layout_.worker_user);
    line(0, "pid " + run + "/nginx.pid;");
    line(0, "error_log " + run + "/error.log warn;");
    line(0, "events { worker_connections 4096; }");
  }

  void http() {
    const auto& run = layout_.runtime_dir;
    if (std::filesystem::exists("/etc/nginx/mime.types")) {
      line(1, "include /etc/nginx/mime.types;");
    } else {
      line(1,
           "types { text/html html; text/css css; application/javascript js; "
           "application/json json; image/png png; image/svg+xml svg; }");
    }
    line(1, "default_type application/octet-stream;");
    // Debian's mime.types (with the plugins' types files) does not fit the default hash:
    // without both every start and reload writes a warning to the error log.
    line(1, "types_hash_max_size 2048;");
    line(1, "types_hash_bucket_size 128;");
    line(1, "server_tokens off;");
    line(1, "sendfile on;");
    line(1, "tcp_nopush on;");
    line(1, "keepalive_timeout 65;");
    // Custom domains can be long and many.
    line(1, "server_names_hash_bucket_size 128;");
    line(1, "server_names_hash_max_size 16384;");
    line(1, "client_body_temp_path " + run + "/client_body;");
    line(1, "proxy_temp_path " + run + "/proxy;");
    line(1, "fastcgi_temp_path " + run + "/fastcgi;");
    line(1, "uwsgi_temp_path " + run + "/uwsgi;");
    line(1, "scgi_temp_path " + run + "/scgi;");
    for (const char* edge : {"api", "project"}) {
      line(1, std::string("log_format berth_") + edge + " escape=json '{\"request_id\":\"" +
                  requestId() +
                  "\",\"host\":\"$host\","
                  "\"method\":\"$berth_log_method\",\"path\":\"$berth_log_uri\",\"status\":$status,"
                  "\"seconds\":$request_time,\"bytes\":$body_bytes_sent,\"edge\":\"" +
                  edge + "\",\"remote\":\"$remote_addr\",\"at\":$msec}';");
    }
    // X-Accel-Redirect turns a request into a GET; the log names the method the client sent,
    // which backendProxy() keeps in $berth_method. Requests that never reach it read it unset.
    line(1, "uninitialized_variable_warn off;");
    line(1, "map $berth_method $berth_log_method { '' $request_method; default $berth_method; }");
    apikeyRedaction();
    line(1, "map $http_upgrade $connection_upgrade { default upgrade; '' close; }");
    appAgainMap();
    if (caching()) cacheMaps();
    if (!layout_.files_rules.empty()) filesMaps();
    if (!layout_.app_rules.empty()) appMaps();
    line(1, "upstream berth_backend {");
    line(2, "server 127.0.0.1:" + std::to_string(layout_.backend_port) + ";");
    line(2, "keepalive " + std::to_string(kUpstreamKeepalive) + ";");
    line(1, "}");
  }

  // A publishable key in a query string (the data API's ?apikey=) never reaches the log: its
  // value becomes REDACTED, matched without regard to case or percent-encoding of the name.
  // With a second apikey in the query, everything after the first is dropped.
  void apikeyRedaction() {
    const std::string name = "(?:a|%61)(?:p|%70)(?:i|%69)(?:k|%6b)(?:e|%65)(?:y|%79)";
    const std::string head = "(?<berth_log_head>[^?]*\\?(?:[^&]*&)*?)" + name + "=";
    line(1, "map $request_uri $berth_log_uri {");
    line(2, "\"~*^" + head + ".*&" + name + "=\" \"${berth_log_head}apikey=REDACTED\";");
    line(2, "\"~*^" + head +
                "[^&]*(?<berth_log_tail>.*)$\" "
                "\"${berth_log_head}apikey=REDACTED${berth_log_tail}\";");
    line(2, "default $request_uri;");
    line(1, "}");
  }

  bool caching() const { return !layout_.cache_rules.empty(); }

  std::string proofValue() const {
    return layout_.edge_proof.empty() ? "\"\"" : layout_.edge_proof;
  }

  // The same text in the access log and in the header berthd reads, so its log lines and the
  // request's access line share the id.
  std::string requestId() const {
    return layout_.request_id_prefix + "-$pid-$connection-$connection_requests";
  }

  void cacheMaps() {
    uint64_t zone_mb = std::clamp<uint64_t>(layout_.cache_max_bytes / (64 * kMiB), 1, 256);
    uint64_t max_mb = std::max<uint64_t>(1, layout_.cache_max_bytes / kMiB);
    line(1, "proxy_cache_path " + layout_.runtime_dir +
                "/cache levels=1:2 keys_zone=berth_cache:" + std::to_string(zone_mb) +
                "m max_size=" + std::to_string(max_mb) + "m inactive=1d use_temp_path=off;");
    // PHP's answers (FastCGI) need a zone of their own; edge.cache_max_size bounds each.
    line(1, "fastcgi_cache_path " + layout_.runtime_dir +
                "/fcgi-cache levels=1:2 keys_zone=berth_fcgi_cache:" + std::to_string(zone_mb) +
                "m max_size=" + std::to_string(max_mb) + "m inactive=1d use_temp_path=off;");
    line(1, "map $berth_method $berth_not_get { GET ''; default 1; }");
    // The key names the host's live release (and purges): a host without one is not cached.
    line(1, "map $host $berth_cache_key {");
    line(2, "default \"\";");
    for (const auto& rule : layout_.cache_rules) line(2, mapHost(rule.host) + " " + rule.key + ";");
    line(1, "}");
    line(1, "map $berth_cache_key $berth_cache_off { '' 1; default ''; }");
    // Answers for a user (credentials, cookies) and websockets are never cached; a schedule's
    // run must reach the app, whatever the cache holds.
    line(1,
         "map \"$http_authorization$http_cookie$http_upgrade$http_x_berth_schedule\" "
         "$berth_cache_private { '' ''; default 1; }");
    // Only answers served from the cache say HIT; berthd's own answers get no header.
    line(1,
         "map $upstream_cache_status $berth_cache_hit "
         "{ HIT HIT; STALE HIT; UPDATING HIT; REVALIDATED HIT; default ''; }");
    line(1,
         "map $upstream_cache_status $berth_cache_status "
         "{ HIT HIT; STALE HIT; UPDATING HIT; REVALIDATED HIT; default MISS; }");
  }

  void filesMaps() {
    // Only plain paths are looked up in a tree: nginx would merge "//" and resolve dot segments
    // and encoded separators that berthd's routes refuse, serving a file they would not. A
    // schedule's run always reaches berthd, which logs it as the schedule's.
    line(1, "map \"$http_x_berth_schedule|$request_method:$request_uri\" $berth_tree_gate {");
    line(2, R"re("~^\|(GET|HEAD):[^?]*(//|/\.|%2[eEfF]|%5[cC]|\\\\)" '';)re");
    line(2, "\"~^\\|(GET|HEAD):\" 1;");
    line(2, "default '';");
    line(1, "}");
    // "-" is never a host (a host cannot start with '-'), so <root>/- never exists.
    line(1, "map $berth_tree_gate $berth_tree_host { 1 $host; default -; }");
    for (size_t i = 0; i < layout_.files_rules.size(); ++i) {
      const auto& index = layout_.files_rules[i].index;
      line(1, "map $uri $berth_tree_index_" + std::to_string(i) + " { ~/$ \"" + index +
                  "\"; default ''; }");
    }
  }

  void appMaps() {
    // Each running app is an upstream of its own, so connections to it are kept alive.
    std::set<uint16_t> ports;
    for (const auto& rule : layout_.app_rules) ports.insert(rule.port);
    for (uint16_t port : ports) {
      line(1, "upstream berth_app_" + std::to_string(port) + " {");
      line(2, "server 127.0.0.1:" + std::to_string(port) + " max_fails=0;");
      // Idle connections each worker keeps. Fewer than the requests in flight make nginx close
      // and reopen connections all the time (64 clients through 2 workers with 16 opened 2,800
      // a second), which costs the app more than the requests themselves.
      line(2, "keepalive " + std::to_string(kUpstreamKeepalive) + ";");
      // Shorter than the apps' own idle limit (Node's is 5 s), so nginx never sends a request
      // on a connection the app is closing: a POST on one would fail without a retry.
      line(2, "keepalive_timeout 4s;");
      line(1, "}");
    }
    line(1, "map $host $berth_app_upstream {");
    line(2, "default \"\";");
    for (const auto& rule : layout_.app_rules)
      line(2, mapHost(rule.host) + " berth_app_" + std::to_string(rule.port) + ";");
    line(1, "}");
    // Which direct location takes the host: "u" uncached, else its cache rule's ttl.
    line(1, "map $host $berth_app_route_of_host {");
    line(2, "default \"\";");
    for (const auto& rule : layout_.app_rules)
      line(2, mapHost(rule.host) + " " + appRoute(rule) + ";");
    line(1, "}");
    // A schedule's run reaches berthd, which logs it as the schedule's.
    line(1,
         "map $http_x_berth_schedule $berth_app_route { '' $berth_app_route_of_host; "
         "default ''; }");
    // Kept-alive connections must not say "close"; upgrades still say "upgrade".
    line(1, "map $http_upgrade $berth_app_connection { default upgrade; '' ''; }");
  }

  // A host as a map's source value. A leading backslash keeps a host such as "default" from
  // reading as a map keyword, and map drops it; but nginx's parser first reads "\n", "\r" and
  // "\t" as control characters, so "\nodeapp.example" would never match nodeapp.example (no
  // cache, no direct route). An escaped backslash ("\\") reaches map as one backslash.
  static std::string mapHost(const std::string& host) { return "\\\\" + host; }

  std::string appRoute(const EdgeAppRule& rule) const {
    for (const auto& cache : layout_.cache_rules)
      if (cache.host == rule.host) return std::to_string(cache.ttl_seconds);
    return "u";
  }

  void cacheKey(int depth) {
    line(depth, "proxy_cache berth_cache;");
    line(depth, "proxy_cache_key \"$berth_cache_key|$host|$request_uri\";");
    line(depth, "proxy_cache_bypass $berth_cache_off $berth_cache_private;");
    // A Range of a kept answer is cut from it, whether or not the app said Accept-Ranges.
    line(depth, "proxy_force_ranges on;");
  }

  void accessLog(const std::string& edge) {
    // Buffered: one write per 64 KB or quarter second, not one per request.
    line(2,
         "access_log " + layout_.access_log_file + " berth_" + edge + " buffer=64k flush=250ms;");
  }

  // proxy_set_header is inherited only by levels that set none, so each backend location
  // repeats the whole list.
  // `kept_method`: send the method a location before an X-Accel-Redirect kept in $berth_method
  // (the request now reads GET) rather than this request's.
  void backendProxy(int depth, const std::string& edge, bool spooled, bool kept_method = false) {
    line(depth, "proxy_pass http://berth_backend;");
    line(depth, "proxy_http_version 1.1;");
    // Pistache closes HTTP/1.1 connections that do not ask for keep-alive.
    line(depth, "proxy_set_header Connection \"keep-alive\";");
    line(depth, "proxy_set_header Host $http_host;");
    line(depth, "proxy_set_header X-Real-IP $remote_addr;");
    line(depth, "proxy_set_header X-Berth-Request-Id " + requestId() + ";");
    // The URI exactly as sent: Pistache keeps query parameters in a hash map, losing order.
    line(depth, "proxy_set_header X-Berth-Uri $request_uri;");
    line(depth, "proxy_set_header X-Berth-Edge " + edge + ";");
    // What makes berthd believe every header above: a secret new at each start of berthd.
    line(depth, "proxy_set_header X-Berth-Edge-Proof " + proofValue() + ";");
    if (spooled) {
      line(depth, "proxy_pass_request_body off;");
      line(depth, "proxy_set_header Content-Length \"\";");
      line(depth, "proxy_set_header X-Berth-Body-File $request_body_file;");
    } else {
      // A client must not be able to name a file for berthd to read.
      line(depth, "proxy_set_header X-Berth-Body-File \"\";");
    }
    // berthd may hold a request while a project's process starts.
    line(depth, "proxy_read_timeout 3600s;");
    line(depth, "proxy_send_timeout 3600s;");
    if (kept_method) {
      line(depth, "proxy_method $berth_method;");
    } else {
      // X-Accel-Redirect turns the method into GET; /_berth_proxy/ puts this one back.
      line(depth, "set $berth_method $request_method;");
    }
  }

  // An app stopped or restarted between berthd's answer and nginx's connect refuses it. When
  // nothing reached the app, berthd is asked once more (it wakes the app or names its new
  // port); a request the app may have read is never sent twice. $upstream_bytes_sent lists
  // every upstream of the request, internal redirects parted by " : ": the app's is the last
  // part, and a part with several tries ("0, 0") is not retried. volatile: a map's value is
  // otherwise kept for the request, and the second failure must read it again.
  // $berth_app_again is set by @berth_app_again only; no header or argument can set it.
  void appAgainMap() {
    line(1, "map \"$berth_app_again|$upstream_bytes_sent\" $berth_app_502_page {");
    line(2, "volatile;");
    line(2, "\"~^[|](.* : )?0$\" @berth_app_again;");
    line(2, "default @berth_app_502;");
    line(1, "}");
  }

  // The second asking of berthd (appAgainMap), as the first: same headers and proof, the
  // body again (read whole before berthd was first asked), the client's method. Not through
  // the edge cache: this request now reads GET, so a POST could be answered from it. The
  // API server's routes never proxy to apps, and its spooled bodies are handed by file: a
  // refused app is answered there without asking again.
  void appAgainLocation(const std::string& edge) {
    line(2, "location @berth_app_again {");
    if (edge == "project") {
      line(3, "set $berth_app_again 1;");
      line(3, "proxy_request_buffering on;");
      backendProxy(3, edge, false, true);
      if (caching()) line(3, "proxy_hide_header x-berth-cache;");
    } else {
      line(3, "default_type application/json;");
      line(3, "return 502 " + jsonError(kAppNotAnswering) + ";");
    }
    line(2, "}");
  }

  void errorPages(int depth, const std::string& too_large_location) {
    // nginx refuses a malformed request line or URI (a %00, a path above /) itself; its answer
    // is JSON too. Not a named location: those cannot take a request whose URI is unusable.
    line(depth, "error_page 400 /_berth_error_400;");
    line(depth, "error_page 413 = " + too_large_location + ";");
    line(depth, "error_page 500 = @berth_500;");
    line(depth, "error_page 502 = @berth_502;");
    line(depth, "error_page 504 = @berth_504;");
  }

  void jsonErrorLocation(const std::string& name, int status, const std::string& message) {
    line(2, "location " + name + " {");
    line(3, "default_type application/json;");
    line(3, "return " + std::to_string(status) + " " + jsonError(message) + ";");
    line(2, "}");
  }

  void namedErrorLocations(uint64_t body_limit) {
    line(2, "location = /_berth_error_400 {");
    line(3, "internal;");
    line(3, "default_type application/json;");
    line(3, "return 400 " +
                jsonError("the request is malformed: its URL or headers cannot be read") + ";");
    line(2, "}");
    jsonErrorLocation("@berth_413", 413, bodyTooLargeMessage(body_limit));
    jsonErrorLocation("@berth_500", 500, "the edge failed to handle the request");
    jsonErrorLocation("@berth_502", 502, "berthd is not answering; try again");
    jsonErrorLocation("@berth_504", 504, "the upstream took too long to answer");
    jsonErrorLocation("@berth_file_404", 404, "no such file");
    jsonErrorLocation("@berth_app_502", 502, kAppNotAnswering);
    jsonErrorLocation("@berth_app_504", 504, "the app took too long to answer");
    jsonErrorLocation("@berth_node_502", 502,
                      "the node that runs this project's app is not answering; try again");
  }

  // Targets of X-Accel-Redirect answers from berthd; never reachable from outside.
  void internalLocations(const std::string& edge) {
    line(2, "location /_berth_file/ {");
    line(3, "internal;");
    line(3, "alias " + layout_.data_dir + "/;");
    // berthd names files below data_dir; a link planted below it is never followed.
    line(3, "disable_symlinks on from=" + layout_.data_dir + ";");
    line(3, "sendfile on;");
    line(3, "etag on;");
    line(3, "error_page 404 = @berth_file_404;");
    line(3, "error_page 500 = @berth_500;");
    line(2, "}");

    line(2, "location ~ ^/_berth_proxy/(?<berth_port>[0-9]+)/ {");
    appProxy("_berth_proxy/[0-9]+");
    line(3, "add_header x-berth-cache MISS always;");
    line(2, "}");

    // FastCGI (php-cgi): the document root travels in the path, below data_dir, so that nginx
    // takes the script's file name from nowhere else.
    fastcgiLocation("_berth_fcgi/", std::nullopt);
    // Cached FastCGI, as cached proxying below: one location per ttl, then a catch-all.
    if (caching())
      for (uint32_t ttl : edgeCacheTtls(layout_))
        fastcgiLocation("_berth_fcgi_cache/" + std::to_string(ttl) + "/", ttl);
    fastcgiLocation("_berth_fcgi_cache/[0-9]+/", std::nullopt);

    // Cached proxying, one location per ttl of the rules (proxy_cache_valid takes no
    // variable). The catch-all after them serves ttls this config does not know (berthd may
    // answer with a ttl of a config nginx has not loaded yet): proxied, not cached.
    if (caching()) {
      for (uint32_t ttl : edgeCacheTtls(layout_)) {
        line(2, "location ~ ^/_berth_cache/" + std::to_string(ttl) + "/(?<berth_port>[0-9]+)/ {");
        appProxy("_berth_cache/[0-9]+/[0-9]+");
        cacheKey(3);
        line(3,
             "proxy_no_cache $berth_cache_off $berth_cache_private "
             "$upstream_http_x_accel_redirect $upstream_http_x_accel_limit_rate;");
        // Only when the answer does not say itself (Cache-Control, Expires).
        if (ttl > 0) line(3, "proxy_cache_valid " + std::to_string(ttl) + "s;");
        line(3, "add_header x-berth-cache $berth_cache_status always;");
        line(2, "}");
      }
    }
    line(2, "location ~ ^/_berth_cache/[0-9]+/(?<berth_port>[0-9]+)/ {");
    appProxy("_berth_cache/[0-9]+/[0-9]+");
    line(3, "add_header x-berth-cache MISS always;");
    line(2, "}");
    if (!layout_.forward_proof.empty()) nodeProxy();
    appAgainLocation(edge);
  }

  // To the edge of the node that runs a project's app (berthd checked the address against
  // the live nodes'): the client's method, Host, path and query, the body and the answer
  // streamed as to an app, marked as forwarded with the cluster secret so that the receiver
  // serves it itself. The address is an IP literal, so no resolver is needed.
  void nodeProxy() {
    line(2,
         "location ~ "
         "\"^/_berth_node/(?<berth_node>[0-9.]+:[0-9]+|\\[[0-9a-fA-F:.]+\\]:[0-9]+)/\" {");
    line(3, "internal;");
    line(3, "proxy_pass http://$berth_node$request_uri;");
    line(3, "proxy_method $berth_method;");
    toApp("$connection_upgrade", "off", layout_.forward_proof);
    line(3, "error_page 502 = @berth_node_502;");
    line(3, "error_page 504 = @berth_app_504;");
    line(3, "error_page 500 = @berth_500;");
    line(2, "}");
  }

  void fastcgiLocation(const std::string& prefix, std::optional<uint32_t> cache_ttl) {
    line(2, "location ~ ^/" + prefix +
                "(?<berth_port>[0-9]+)(?<berth_fcgi_root>/.*?)"
                "/_berth_script(?<berth_fcgi_script>/.*)$ {");
    fastcgi(3, cache_ttl);
    line(2, "}");
  }

  void fastcgi(int depth, std::optional<uint32_t> cache_ttl) {
    const std::string root = layout_.data_dir + "$berth_fcgi_root";
    line(depth, "internal;");
    line(depth, "fastcgi_pass 127.0.0.1:$berth_port;");
    const std::vector<std::pair<std::string, std::string>> params = {
        {"SCRIPT_FILENAME", root + "$berth_fcgi_script"},
        {"SCRIPT_NAME", "$berth_fcgi_script"},
        {"DOCUMENT_URI", "$berth_fcgi_script"},
        {"DOCUMENT_ROOT", root},
        {"PATH_INFO", "\"\""},
        {"REQUEST_URI", "$request_uri"},
        {"QUERY_STRING", "$args"},
        {"REQUEST_METHOD", "$berth_method"},
        {"CONTENT_TYPE", "$content_type"},
        {"CONTENT_LENGTH", "$content_length"},
        {"SERVER_PROTOCOL", "$server_protocol"},
        {"REQUEST_SCHEME", "$scheme"},
        {"GATEWAY_INTERFACE", "CGI/1.1"},
        {"SERVER_SOFTWARE", "berth"},
        {"REMOTE_ADDR", "$remote_addr"},
        {"REMOTE_PORT", "$remote_port"},
        {"SERVER_ADDR", "$server_addr"},
        {"SERVER_PORT", "$server_port"},
        {"SERVER_NAME", "$host"},
        // php-cgi refuses to run without it (cgi.force_redirect).
        {"REDIRECT_STATUS", "200"},
        // A client's "Proxy:" header must not become the app's HTTP_PROXY (httpoxy).
        {"HTTP_PROXY", "\"\""},
        // berthd's secrets never reach an app (a schedule's run carries the node proof).
        {"HTTP_X_BERTH_EDGE_PROOF", "\"\""},
        {"HTTP_X_BERTH_NODE_PROOF", "\"\""},
        {"HTTP_X_BERTH_FORWARDED", "\"\""},
    };
    for (const auto& [name, value] : params)
      line(depth, "fastcgi_param " + name + " " + value + ";");
    line(depth, "fastcgi_param HTTPS $https if_not_empty;");
    line(depth, "fastcgi_connect_timeout 10s;");
    line(depth, "fastcgi_read_timeout 3600s;");
    line(depth, "fastcgi_send_timeout 3600s;");
    line(depth, "fastcgi_ignore_headers X-Accel-Redirect X-Accel-Expires X-Accel-Limit-Rate;");
    line(depth, "fastcgi_hide_header x-berth-cache;");
    if (cache_ttl) {
      // The proxy cache's key and rules; only a GET is stored (a HEAD reaches PHP as a HEAD).
      line(depth, "fastcgi_cache berth_fcgi_cache;");
      line(depth, "fastcgi_force_ranges on;");
      line(depth, "fastcgi_cache_key \"$berth_cache_key|$host|$request_uri\";");
      line(depth, "fastcgi_cache_bypass $berth_cache_off $berth_cache_private $berth_not_get;");
      line(depth,
           "fastcgi_no_cache $berth_cache_off $berth_cache_private $berth_not_get "
           "$upstream_http_x_accel_redirect $upstream_http_x_accel_limit_rate;");
      if (*cache_ttl > 0) line(depth, "fastcgi_cache_valid " + std::to_string(*cache_ttl) + "s;");
      line(depth, "add_header x-berth-cache $berth_cache_status always;");
    } else {
      line(depth, "add_header x-berth-cache MISS always;");
    }
    appErrorPages(depth);
    line(depth, "error_page 500 = @berth_500;");
  }

  // What every proxying to an app says: the client's facts in headers, long timeouts, and
  // nothing the app answers may steer the edge. `connection` is the Connection header's
  // variable; `request_buffering` is "on" or "off".
  void toApp(const std::string& connection, const std::string& request_buffering,
             const std::string& forwarded = "\"\"") {
    line(3, "proxy_http_version 1.1;");
    line(3, "proxy_set_header Host $http_host;");
    line(3, "proxy_set_header Upgrade $http_upgrade;");
    line(3, "proxy_set_header Connection " + connection + ";");
    line(3, "proxy_set_header X-Real-IP $remote_addr;");
    line(3, "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;");
    line(3, "proxy_set_header X-Forwarded-Proto $scheme;");
    line(3, "proxy_set_header X-Forwarded-Host $host;");
    line(3, "proxy_set_header X-Berth-Body-File \"\";");
    // berthd's secrets never reach an app (a schedule's run carries the node proof).
    line(3, "proxy_set_header X-Berth-Edge-Proof \"\";");
    line(3, "proxy_set_header X-Berth-Node-Proof \"\";");
    // The cluster secret reaches another node's edge only (nodeProxy), never an app.
    line(3, "proxy_set_header X-Berth-Forwarded " + forwarded + ";");
    line(3, "proxy_request_buffering " + request_buffering + ";");
    line(3, "proxy_buffering on;");
    line(3, "proxy_connect_timeout 10s;");
    line(3, "proxy_read_timeout 3600s;");
    line(3, "proxy_send_timeout 3600s;");
    // An app must not be able to redirect nginx into berthd's files.
    line(3, "proxy_ignore_headers X-Accel-Redirect X-Accel-Expires X-Accel-Limit-Rate;");
    // x-berth-cache is the edge's to say.
    line(3, "proxy_hide_header x-berth-cache;");
  }

  // The body of an internal location proxying to an app on 127.0.0.1:$berth_port; `prefix`
  // is the regex of what precedes the app's path.
  void appProxy(const std::string& prefix) {
    line(3, "internal;");
    // The target path is taken from the decoded URI and re-escaped by proxy_pass, so odd
    // characters in it still make a valid request line.
    line(3, "rewrite \"(?s)^/" + prefix + "(/.*)$\" $1 break;");
    line(3, "proxy_pass http://127.0.0.1:$berth_port;");
    line(3, "proxy_method $berth_method;");
    toApp("$connection_upgrade", "off");
    appErrorPages(3);
    line(3, "error_page 500 = @berth_500;");
  }

  // Where an app location's failures go: a 502 to berthd once more or to the JSON answer
  // (appAgainMap). recursive_error_pages: without it the first error_page marks the request,
  // and the app's second 502 (after asking again) would get nginx's own HTML page.
  void appErrorPages(int depth) {
    line(depth, "recursive_error_pages on;");
    line(depth, "error_page 502 = $berth_app_502_page;");
    line(depth, "error_page 504 = @berth_app_504;");
  }

  void apiServer() {
    line(1, "server {");
    line(2, "listen " + listenDirectiveAddress(layout_.listen) + " default_server;");
    line(2, "server_name api." + lowercase(layout_.apps_domain) + " _;");
    accessLog("api");
    line(2, "client_max_body_size " + std::to_string(layout_.json_body_limit) + ";");
    errorPages(2, "@berth_413");

    line(2, "location / {");
    backendProxy(3, "api", false);
    line(2, "}");

    // nginx locations cannot match a method, so routes sharing a path share a location.
    std::vector<std::pair<std::string, uint64_t>> spooled;  // regex, limit; in route order
    for (const auto& route : layout_.spooled_routes) {
      std::string regex = routePatternRegex(route.path);
      auto same = std::find_if(spooled.begin(), spooled.end(),
                               [&](const auto& entry) { return entry.first == regex; });
      if (same == spooled.end()) {
        spooled.emplace_back(regex, route.max_body_bytes);
      } else {
        same->second = std::max(same->second, route.max_body_bytes);
      }
    }
    for (size_t i = 0; i < spooled.size(); ++i) {
      const auto& [regex, limit] = spooled[i];
      std::string too_large = "@berth_413_spooled_" + std::to_string(i);
      line(2, "location ~ \"" + regex + "\" {");
      line(3, "client_max_body_size " + std::to_string(limit) + ";");
      line(3, "client_body_in_file_only clean;");
      line(3, "client_body_buffer_size 16k;");
      backendProxy(3, "api", true);
      errorPages(3, too_large);
      line(2, "}");
      jsonErrorLocation(too_large, 413, bodyTooLargeMessage(limit));
    }

    if (!layout_.console_dir.empty()) consoleLocations();
    internalLocations("api");
    namedErrorLocations(layout_.json_body_limit);
    line(1, "}");
  }

  // The web console: static files, answered by nginx without asking berthd. It is a client of
  // the API like any other, so berthd has nothing to decide here; the headers are what keep a
  // page holding a session safe: no script but its own files (no inline script, no eval), no
  // framing, no Referer, no type guessing.
  void consoleLocations() {
    const std::string& dir = layout_.console_dir;
    bool plain = !dir.empty() && dir.front() == '/';
    for (char c : dir) {
      plain =
          plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '.' || c == '_' || c == '-' || c == '+');
    }
    if (!plain)
      throw std::invalid_argument("the console's folder must be a plain absolute path: '" + dir +
                                  "'");
    line(2, "location = /console {");
    line(3, "absolute_redirect off;");
    line(3, "return 301 /console/;");
    line(2, "}");
    line(2, "location ^~ /console/ {");
    consoleFiles(3, dir + "/", "no-cache");
    line(3, "index index.html;");
    // The vendored libraries carry their version in their names: a new one is a new file.
    line(3, "location ^~ /console/vendor/ {");
    consoleFiles(4, dir + "/vendor/", "public, max-age=31536000, immutable");
    line(3, "}");
    line(2, "}");
  }

  void consoleFiles(int depth, const std::string& alias, const std::string& cache_control) {
    line(depth, "alias " + alias + ";");
    line(depth, "limit_except GET { deny all; }");
    line(depth, "charset utf-8;");
    line(depth, "etag on;");
    // Small text files, fetched on every first visit: compressed, for slow links.
    line(depth, "gzip on;");
    line(depth, "gzip_types text/css application/javascript;");
    line(depth, "gzip_vary on;");
    // add_header is inherited only by levels that set none, so each location repeats them all.
    line(depth, "add_header Cache-Control \"" + cache_control + "\" always;");
    line(depth,
         "add_header Content-Security-Policy \"default-src 'self'; script-src 'self'; "
         "style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
         "base-uri 'none'; form-action 'self'; frame-ancestors 'none'\" always;");
    line(depth, "add_header X-Content-Type-Options nosniff always;");
    line(depth, "add_header Referrer-Policy no-referrer always;");
    line(depth, "add_header X-Frame-Options DENY always;");
    line(depth, "add_header Cross-Origin-Opener-Policy same-origin always;");
  }

  const EdgeFilesRule* filesRuleFor(const std::string& prefix) const {
    for (const auto& rule : layout_.files_rules)
      if (rule.prefix == prefix) return &rule;
    return nullptr;
  }

  // The project server's way to berthd: the edge cache first, when there is one.
  void projectBackend(int depth) {
    line(depth, "proxy_request_buffering on;");
    backendProxy(depth, "project", false);
    if (caching()) {
      // A cached answer is sent from here, before berthd is asked: a HIT costs no decision.
      // berthd's own answers are never stored (the cache locations store the apps').
      cacheKey(depth);
      line(depth, "proxy_no_cache 1;");
      // A HEAD is looked up as is (a GET's entry answers it) and reaches berthd as a HEAD.
      line(depth, "proxy_cache_convert_head off;");
      // With a cache, nginx would drop these before asking berthd; berthd sees them as sent.
      for (const char* name : {"Range", "If-Range", "If-None-Match", "If-Modified-Since",
                               "If-Match", "If-Unmodified-Since"}) {
        std::string variable = "$http_" + lowercase(name);
        std::replace(variable.begin(), variable.end(), '-', '_');
        line(depth, std::string("proxy_set_header ") + name + " " + variable + ";");
      }
      line(depth, "proxy_hide_header x-berth-cache;");
      line(depth, "add_header x-berth-cache $berth_cache_hit always;");
    }
  }

  // A plugin's tree answers what it has; everything else goes to berthd.
  void treeLookup(int depth, const EdgeFilesRule& rule, const std::string& path) {
    size_t index = static_cast<size_t>(&rule - layout_.files_rules.data());
    line(depth, "root " + rule.root + "/$berth_tree_host;");
    // The host's entry (which may itself be a link to a release folder) is the plugin's; no
    // link below it is followed, so a tenant's planted link serves nothing.
    line(depth, "disable_symlinks on from=$document_root;");
    if (!rule.types_file.empty()) {
      line(depth, "include " + rule.types_file + ";");
      line(depth, "default_type application/octet-stream;");
    }
    line(depth, "etag on;");
    line(depth,
         "try_files " + path + "$berth_tree_index_" + std::to_string(index) + " @berth_project;");
  }

  // Requests for hosts with a running app, rewritten here by location /: straight to the app's
  // upstream with the original URI, through the cache when the host has a rule; a 502 (the
  // app is gone) asks berthd, which wakes it.
  void directLocations() {
    std::set<std::string> routes;
    for (const auto& rule : layout_.app_rules) routes.insert(appRoute(rule));
    for (const auto& route : routes) {
      line(2, "location = /_berth_direct/" + route + " {");
      line(3, "internal;");
      line(3, "proxy_pass http://$berth_app_upstream$request_uri;");
      // Buffered, so that a request the app refused can be given to berthd whole.
      toApp("$berth_app_connection", "on");
      if (route == "u") {
        line(3, "add_header x-berth-cache MISS always;");
      } else {
        cacheKey(3);
        line(3,
             "proxy_no_cache $berth_cache_off $berth_cache_private "
             "$upstream_http_x_accel_redirect $upstream_http_x_accel_limit_rate;");
        if (route != "0") line(3, "proxy_cache_valid " + route + "s;");
        line(3, "add_header x-berth-cache $berth_cache_status always;");
      }
      line(3, "error_page 502 = @berth_project;");
      line(3, "error_page 504 = @berth_app_504;");
      line(3, "error_page 500 = @berth_500;");
      line(2, "}");
    }
  }

  void projectServer() {
    line(1, "server {");
    std::string main_listen = listenDirectiveAddress(layout_.listen);
    line(2, "listen " + main_listen + ";");
    for (const auto& extra : layout_.project_listens) {
      std::string address = listenDirectiveAddress(extra);
      // The only server on these addresses: whatever the Host, project traffic.
      if (address != main_listen) line(2, "listen " + address + " default_server;");
    }
    std::string names =
        "\"~^(?<berth_sub>[a-z0-9-]+)\\." + escapeRegex(lowercase(layout_.apps_domain)) + "$\"";
    for (const auto& host : layout_.custom_hosts) names += " " + lowercase(host);
    line(2, "server_name " + names + ";");
    accessLog("project");
    line(2, "client_max_body_size " + std::to_string(layout_.project_body_limit) + ";");
    errorPages(2, "@berth_413");

    const EdgeFilesRule* root_files = filesRuleFor("/");
    line(2, "location / {");
    if (!layout_.app_rules.empty())
      line(3, "if ($berth_app_route) { rewrite ^ /_berth_direct/$berth_app_route last; }");
    if (root_files) {
      treeLookup(3, *root_files, "$uri");
    } else {
      projectBackend(3);
    }
    line(2, "}");
    // Where a tree miss, a direct app's 502 and berthd's own routes land.
    line(2, "location @berth_project {");
    projectBackend(3);
    line(2, "}");
    // berthd's own project-host routes, which neither an app nor a site may shadow.
    if (!layout_.app_rules.empty() || root_files) {
      for (const auto& prefix : layout_.project_route_prefixes) {
        if (filesRuleFor(prefix)) continue;  // its tree location falls back to berthd
        line(2, "location ^~ " + prefix + " {");
        projectBackend(3);
        line(2, "}");
      }
    }
    for (size_t i = 0; i < layout_.files_rules.size(); ++i) {
      const auto& rule = layout_.files_rules[i];
      if (rule.prefix == "/") continue;
      line(2, "location ~ \"^" + escapeRegex(rule.prefix) + "(?<berth_tree_rest>.*)$\" {");
      treeLookup(3, rule, "/$berth_tree_rest");
      line(2, "}");
    }
    if (!layout_.app_rules.empty()) directLocations();

    internalLocations("project");
    namedErrorLocations(layout_.project_body_limit);
    line(1, "}");
  }

  // berthd's way to give each worker a request that never ends (EdgePins): a worker keeps
  // running after a reload while it has one, so answers in flight are not cut. reuseport gives
  // each worker its own socket: connections from different source ports reach every worker.
  // A keep-alive connection stays with one worker: "who" says which, "hold" then waits on
  // pin_socket (which never answers) until berthd closes the connection or
  // worker_shutdown_timeout ends the old worker.
  void pinServer() {
    if (layout_.pin_socket.empty() || layout_.pin_socket.front() != '/' ||
        layout_.pin_socket.find_first_of(" ;{}\"'$") != std::string::npos)
      throw std::invalid_argument("the edge pin socket must be a plain absolute path: '" +
                                  layout_.pin_socket + "'");
    line(1, "server {");
    line(2, "listen 127.0.0.1:" + std::to_string(layout_.pin_port) + " reuseport;");
    line(2, "access_log off;");
    line(2, "location = /_berth_pin/who { return 200 $pid; }");
    line(2, "location = /_berth_pin/hold {");
    line(3, "proxy_pass http://unix:" + layout_.pin_socket + ":/;");
    line(3, "proxy_set_header X-Berth-Pin-Worker $pid;");
    line(3, "proxy_read_timeout 3600s;");
    line(2, "}");
    line(2, "location / { return 404; }");
    line(1, "}");
  }

  const EdgeLayout& layout_;
  std::ostringstream out_;
};

}  // namespace

std::string renderNginxConfig(const EdgeLayout& layout) {
  return ConfigWriter(layout).render();
}

EdgeCacheRule checkedEdgeCacheRule(EdgeCacheRule rule) {
  rule.host = lowercase(rule.host);
  if (!rule.host.empty() && rule.host.back() == '.') rule.host.pop_back();
  if (rule.host.find("..") != std::string::npos)
    throw std::invalid_argument("edge cache host is not a valid host name: '" + rule.host + "'");
  checkHostName(rule.host, "edge cache host");
  bool key_ok = !rule.key.empty() && rule.key.size() <= kMaxEdgeCacheKey;
  for (char c : rule.key) {
    key_ok = key_ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  }
  if (!key_ok)
    throw std::invalid_argument("edge cache key for '" + rule.host +
                                "' must be 1 to 100 of A-Z a-z 0-9 . _ -: '" + rule.key + "'");
  if (rule.ttl_seconds > kMaxEdgeCacheTtl)
    throw std::invalid_argument("edge cache ttl for '" + rule.host + "' is " +
                                std::to_string(rule.ttl_seconds) + " s, above the limit of " +
                                std::to_string(kMaxEdgeCacheTtl) + " s (1 year)");
  return rule;
}

EdgeFilesRule checkedEdgeFilesRule(EdgeFilesRule rule, const std::string& data_dir) {
  const std::string& prefix = rule.prefix;
  bool prefix_ok = prefix == "/" || (prefix.size() >= 3 && prefix.size() <= 64 &&
                                     prefix.front() == '/' && prefix.back() == '/');
  for (size_t i = 1; prefix_ok && i + 1 < prefix.size(); ++i) {
    char c = prefix[i];
    prefix_ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
  }
  if (!prefix_ok || prefix.find("..") != std::string::npos)
    throw std::invalid_argument(
        "edge files prefix must be \"/\" or \"/<letters, digits . _ ->/\": '" + prefix + "'");
  // Pasted into the config unquoted: a plain absolute path below data_dir, nothing else.
  auto plain = [](const std::string& path) {
    if (path.empty() || path.front() != '/' || path.find("/../") != std::string::npos ||
        path.find("/./") != std::string::npos || path.find("//") != std::string::npos)
      return false;
    for (char c : path) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '/' || c == '.' || c == '_' || c == '-' || c == '+';
      if (!ok) return false;
    }
    return true;
  };
  while (rule.root.size() > 1 && rule.root.back() == '/') rule.root.pop_back();
  std::string under = data_dir;
  if (under.empty() || under.back() != '/') under += '/';
  if (!plain(rule.root) || rule.root.compare(0, under.size(), under) != 0 ||
      rule.root.size() == under.size())
    throw std::invalid_argument("edge files root for '" + prefix +
                                "' must be a plain absolute path below data_dir: '" + rule.root +
                                "'");
  if (!rule.types_file.empty() && !plain(rule.types_file))
    throw std::invalid_argument("edge files types file for '" + prefix +
                                "' must be a plain absolute path: '" + rule.types_file + "'");
  bool index_ok = rule.index.size() <= 64 && rule.index.find("..") == std::string::npos;
  for (char c : rule.index) {
    index_ok = index_ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-');
  }
  if (!index_ok)
    throw std::invalid_argument("edge files index for '" + prefix +
                                "' must be a plain file name: '" + rule.index + "'");
  return rule;
}

EdgeAppRule checkedEdgeAppRule(EdgeAppRule rule) {
  rule.host = lowercase(rule.host);
  if (!rule.host.empty() && rule.host.back() == '.') rule.host.pop_back();
  if (rule.host.find("..") != std::string::npos)
    throw std::invalid_argument("edge app host is not a valid host name: '" + rule.host + "'");
  checkHostName(rule.host, "edge app host");
  if (rule.port < 1024)
    throw std::invalid_argument("edge app port for '" + rule.host + "' must be 1024 to 65535");
  return rule;
}

std::vector<uint32_t> edgeCacheTtls(const EdgeLayout& layout) {
  std::set<uint32_t> ttls;
  for (const auto& rule : layout.cache_rules) ttls.insert(rule.ttl_seconds);
  return {ttls.begin(), ttls.end()};
}

bool nginxLosesTimersWithEpoll(const std::string& version_text) {
  const std::string marker = "nginx/";
  size_t at = version_text.find(marker);
  if (at == std::string::npos) return true;
  std::istringstream numbers(version_text.substr(at + marker.size()));
  int major = -1, minor = -1, patch = -1;
  char dot1 = 0, dot2 = 0;
  if (!(numbers >> major >> dot1 >> minor >> dot2 >> patch) || dot1 != '.' || dot2 != '.')
    return true;
  // Fixed in 1.23.1 (nginx ticket #2367, "Events: fixed EPOLLRDHUP with FIONREAD").
  return std::tuple(major, minor, patch) < std::tuple(1, 23, 1);
}

std::string routePatternRegex(const std::string& pattern) {
  std::string regex = "^";
  size_t pos = 0;
  while (pos < pattern.size()) {
    size_t end = pattern.find('/', pos + 1);
    if (end == std::string::npos) end = pattern.size();
    std::string segment = pattern.substr(pos, end - pos);  // "/name", "/:param", "/*rest"
    if (segment.size() > 1 && segment[1] == ':') {
      regex += "/[^/]+";
    } else if (segment.size() > 1 && segment[1] == '*') {
      regex += "/.+";
    } else {
      regex += escapeRegex(segment);
    }
    pos = end;
  }
  return regex + "$";
}

}  // namespace berth::core
