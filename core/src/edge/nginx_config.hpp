// The nginx configuration berthd generates for its edge. Pure: text in, text out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace berth::core {

// A management route whose body is raw bytes, spooled by nginx to a file and handed to berthd
// by path (header X-Berth-Body-File), with its own size limit.
struct SpooledRoute {
  std::string method;  // "POST"
  std::string path;    // the route pattern, ":param" and "*rest" segments
  uint64_t max_body_bytes;
};

// One host whose project answers the edge may cache (see the "edge cache" notes below).
struct EdgeCacheRule {
  std::string host;  // plain DNS name, lower case
  std::string key;   // [A-Za-z0-9._-]{1,100}: part of the cache key; a new key = a fresh cache
  uint32_t ttl_seconds = 0;  // lifetime of answers that do not say; 0 = only those that do

  bool operator==(const EdgeCacheRule&) const = default;
};

inline constexpr uint32_t kMaxEdgeCacheTtl = 365u * 24 * 3600;
inline constexpr size_t kMaxEdgeCacheKey = 100;

// Lower-cases the host (and drops a final '.'); throws std::invalid_argument naming what is
// wrong. Hosts and keys are pasted into nginx.conf, so anything unusual is refused, not escaped.
EdgeCacheRule checkedEdgeCacheRule(EdgeCacheRule rule);

// A plugin's file tree the edge serves from on project hosts before asking berthd: a GET or
// HEAD for <prefix><rest> is answered with <root>/<host>/<rest> when that file exists.
struct EdgeFilesRule {
  std::string prefix;      // "/" or "/<segment>/"
  std::string root;        // absolute, below data_dir
  std::string index;       // appended to a path ending in '/'; may be empty
  std::string types_file;  // an nginx `types { }` file; empty: the edge's table
  bool operator==(const EdgeFilesRule&) const = default;
};

// A running app the edge proxies a host to without asking berthd.
struct EdgeAppRule {
  std::string host;  // plain DNS name, lower case
  uint16_t port = 0;
  bool operator==(const EdgeAppRule&) const = default;
};

// As checkedEdgeCacheRule: normalised, or std::invalid_argument saying what is wrong.
EdgeFilesRule checkedEdgeFilesRule(EdgeFilesRule rule, const std::string& data_dir);
EdgeAppRule checkedEdgeAppRule(EdgeAppRule rule);

struct EdgeLayout {
  ListenAddress listen;                        // server.listen
  std::vector<ListenAddress> project_listens;  // server.project_listen, if any
  std::string apps_domain;                     // project hosts: <name>.<apps_domain>
  std::vector<std::string> custom_hosts;       // verified custom domains (project traffic)
  uint16_t backend_port = 0;                   // Pistache on 127.0.0.1
  std::string data_dir;                        // absolute; X-Accel files must be below it
  std::string runtime_dir;                     // absolute: data_dir/edge (pid, temp, logs)
  std::string access_log_file;                 // nginx appends, berthd follows (AccessLogTail)
  uint64_t json_body_limit = 2 * 1024 * 1024;
  uint64_t project_body_limit = 256ull * 1024 * 1024;
  std::vector<SpooledRoute> spooled_routes;
  int worker_processes = 2;
  std::string worker_user;  // "user" directive (only when root); may be empty
  // Edge cache: one rule per host (checked, no host twice); none = no cache in the config.
  std::vector<EdgeCacheRule> cache_rules;
  uint64_t cache_max_bytes = 1024ull * 1024 * 1024;  // edge.cache_max_size
  std::vector<EdgeFilesRule> files_rules;            // checked, no prefix twice
  std::vector<EdgeAppRule> app_rules;                // checked, no host twice
  // Literal prefixes of berthd's own project-host routes ("/_files/", "/_data/"): never sent
  // straight to an app.
  std::vector<std::string> project_route_prefixes;
  // Begins every request id of this configuration: "<prefix>-<worker pid>-<connection>-<request
  // on it>". nginx's own $request_id draws 16 random bytes from OpenSSL per request (0.8 us
  // here, about 3% of a worker's time for a proxied request); the counters cost nothing, and a
  // new prefix per written configuration keeps ids apart across reloads and restarts (which
  // reset the connection counter).
  std::string request_id_prefix;
  // Sent to berthd with every request (X-Berth-Edge-Proof): lower-case hex, new at every start
  // of berthd. The file holding it is written 0600.
  std::string edge_proof;
  // The cluster secret (cluster/live_nodes.hpp), lower-case hex: sent as X-Berth-Forwarded with
  // every request this edge forwards to another node's edge (/_berth_node/), and blanked
  // towards every app. Empty: this edge forwards nothing.
  std::string forward_proof;
  // The web console's files (share/berth/console), served on the API host at /console/; empty:
  // no console locations.
  std::string console_dir;
  // The pin server (see EdgePins): 127.0.0.1:pin_port, whose holds wait on the unix socket
  // pin_socket, which never answers. 0: none.
  uint16_t pin_port = 0;
  std::string pin_socket;
};

// Whether the nginx of `nginx -v`'s text (e.g. "nginx version: nginx/1.22.1") can drop the only
// timer of a request whose buffered upstream answer is still arriving: with epoll, before 1.23.1
// (Debian 12 ships 1.22), a read that takes exactly what FIONREAD said leaves the event "ready"
// and the timer is deleted until the next bytes arrive. An old worker of a reload exits as soon
// as it has no timer left, cutting such answers short (the edge pins its workers, EdgePins).
// True as well when the text is unreadable. Only epoll is built into Debian's nginx.
bool nginxLosesTimersWithEpoll(const std::string& version_text);

// The distinct ttls of the rules: each has its own /_berth_cache/<ttl>/ location.
std::vector<uint32_t> edgeCacheTtls(const EdgeLayout& layout);

// The nginx.conf text. Contract with berthd:
//  - every request is proxied to 127.0.0.1:backend_port with X-Berth-Request-Id, X-Real-IP,
//    X-Berth-Edge: project|api (which server block took it), X-Berth-Edge-Proof and the
//    original Host; the project server block is the default server of every project_listen
//    address; apps never receive X-Berth-Edge-Proof or X-Berth-Node-Proof;
//  - files are served from disk (trees, /_berth_file/) without following a symbolic link below
//    a tree's host entry or below data_dir (disable_symlinks);
//  - the access log shows the value of an apikey query parameter as REDACTED;
//  - spooled routes: client_body_in_file_only, X-Berth-Body-File: $request_body_file,
//    the body itself is not passed;
//  - X-Accel-Redirect targets: /_berth_file/<path below data_dir> (sendfile, Range, ETag)
//    and /_berth_proxy/<port>/<path> (proxy to 127.0.0.1:<port>, streamed, upgrades);
//  - /_berth_cache/<ttl>/<port>/<path>: as /_berth_proxy/, through the edge cache (one
//    location per ttl of the rules; any other ttl is proxied uncached);
//  - edge cache: the project server looks a GET/HEAD up in the cache before asking berthd
//    (key "<rule key>|$host|$request_uri"); a HIT never reaches berthd. Requests with
//    Authorization, Cookie or Upgrade, and hosts without a rule, bypass it; answers with
//    Set-Cookie, Cache-Control no-store/no-cache/private or X-Accel-Redirect are not stored.
//    x-berth-cache: HIT|MISS on app answers;
//  - /_berth_fcgi/<port><document root below data_dir>/_berth_script<script>?<query>: the
//    request as FastCGI to 127.0.0.1:<port> (SCRIPT_FILENAME, REQUEST_URI, the client's method);
//  - on the project server, an app that refused the connection of one of the locations above
//    (nothing sent: a stop or restart since berthd answered) gets the request given to berthd
//    once more, with the client's method and body (not through the edge cache); a second
//    refusal, or a 502 after bytes reached the app, is the JSON 502 "the app is not answering";
//  - file trees: a GET/HEAD under a rule's prefix is answered from <root>/<host>/<rest> when the
//    file exists (paths with "//", "/." or an encoded '/', '.' or '\' never are), else as before;
//  - app rules: every request for the host goes to 127.0.0.1:<port> (kept-alive upstream, the
//    host's cache rule applies), except berthd's own project-host routes; a 502 from the app
//    sends the request to berthd instead;
//  - the API server serves console_dir's files at /console/ itself (GET/HEAD; /console redirects
//    there) with a strict CSP, nosniff, no-referrer and no framing; the versioned vendor files
//    are cached a year, everything else revalidated;
//  - 413/502/504 are answered as JSON {"error": "..."};
//  - the access log goes to access_log_file, buffered, as one JSON object per line.
std::string renderNginxConfig(const EdgeLayout& layout);

// A regular expression (nginx/PCRE) matching the concrete paths of a route pattern.
std::string routePatternRegex(const std::string& pattern);

}  // namespace berth::core
