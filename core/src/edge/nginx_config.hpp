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

struct EdgeLayout {
  ListenAddress listen;                        // server.listen
  std::vector<ListenAddress> project_listens;  // server.project_listen, if any
  std::string apps_domain;                     // project hosts: <name>.<apps_domain>
  std::vector<std::string> custom_hosts;       // verified custom domains (project traffic)
  uint16_t backend_port = 0;                   // Pistache on 127.0.0.1
  std::string data_dir;                        // absolute; X-Accel files must be below it
  std::string runtime_dir;                     // absolute: data_dir/edge (pid, temp, logs)
  std::string access_log_socket;               // unix datagram socket berthd reads
  uint64_t json_body_limit = 2 * 1024 * 1024;
  uint64_t project_body_limit = 256ull * 1024 * 1024;
  std::vector<SpooledRoute> spooled_routes;
  int worker_processes = 2;
  std::string worker_user;  // "user" directive (only when root); may be empty
};

// The nginx.conf text. Contract with berthd:
//  - every request is proxied to 127.0.0.1:backend_port with X-Berth-Request-Id, X-Real-IP,
//    X-Berth-Edge: project|api (which server block took it) and the original Host;
//  - spooled routes: client_body_in_file_only, X-Berth-Body-File: $request_body_file,
//    the body itself is not passed;
//  - X-Accel-Redirect targets: /_berth_file/<path below data_dir> (sendfile, Range, ETag)
//    and /_berth_proxy/<port>/<path> (proxy to 127.0.0.1:<port>, streamed, upgrades);
//  - 413/502/504 are answered as JSON {"error": "..."};
//  - the access log goes to access_log_socket (syslog) as one JSON object per line.
std::string renderNginxConfig(const EdgeLayout& layout);

// A regular expression (nginx/PCRE) matching the concrete paths of a route pattern.
std::string routePatternRegex(const std::string& pattern);

}  // namespace berth::core
