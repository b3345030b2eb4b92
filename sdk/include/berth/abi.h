/* Berth plugin ABI: the only binary contract between berthd and a plugin library.
 *
 * Plain C, standard headers only. Everything that crosses the boundary is a fixed-width
 * integer, a borrowed {ptr, len} view, an opaque handle or a function pointer. C++ types,
 * exceptions and allocations never cross: whoever allocates frees.
 *
 * Compatibility:
 *   BERTH_ABI_MAJOR changes  -> incompatible; berthd refuses the plugin at load.
 *   BERTH_ABI_MINOR changes  -> append-only: new fields go at the END of berth_host_api and
 *                               of the structs below; a reader checks struct_size first.
 *
 * Lifecycle (driven by the core, on its main thread unless said otherwise):
 *   1. dlopen (RTLD_NOW | RTLD_LOCAL), then berth_plugin_info_v1() is checked:
 *      struct_size, abi_major, abi_minor <= host minor, id == the configured id.
 *   2. berth_plugin_register_v1(): the plugin declares config keys, routes, migrations, jobs,
 *      hooks, services and installers. Registration closes when it returns.
 *      A plugin of kind BERTH_KIND_TEMPLATE acts on projects only through the install context
 *      the core hands its installers: call_service and the control-plane database refuse it.
 *   3. The core validates configuration, applies every plugin's migrations.
 *   4. berth_plugin_start_v1(), in dependency order. Services of other plugins are usable.
 *   5. Serving. Route handlers, hooks and services run concurrently on core threads.
 *   6. Shutdown: stop taking requests, drain, stop and join jobs, then
 *      berth_plugin_stop_v1() in reverse dependency order. Libraries are never unloaded.
 */
#ifndef BERTH_ABI_H
#define BERTH_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BERTH_ABI_MAJOR 1u
#define BERTH_ABI_MINOR 3u
#define BERTH_EXPORT __attribute__((visibility("default")))

/** A borrowed byte view. ptr == NULL means "absent" (for example a missing header, SQL NULL). */
typedef struct berth_str {
  const char* ptr;
  size_t len;
} berth_str;

typedef struct berth_host berth_host;           /* one per loaded plugin */
typedef struct berth_request berth_request;     /* LIFETIME: until its responder has answered */
typedef struct berth_responder berth_responder; /* answer exactly once, from any thread */
typedef struct berth_buffer berth_buffer;       /* a core-owned growable byte buffer */
typedef struct berth_job_ctx berth_job_ctx;
typedef struct berth_db_session berth_db_session; /* one control-plane connection, held */
typedef struct berth_db_result berth_db_result;

enum berth_status {
  BERTH_OK = 0,
  BERTH_ERR = 1,          /* message in the berth_buffer given, or through report_error */
  BERTH_ERR_NOT_FOUND = 2 /* no such service, account, hook ... */
};

enum berth_plugin_kind { BERTH_KIND_FEATURE = 0, BERTH_KIND_TEMPLATE = 1 };

enum berth_log_level {
  BERTH_LOG_DEBUG = 1,
  BERTH_LOG_INFO = 2,
  BERTH_LOG_WARN = 3,
  BERTH_LOG_ERROR = 4
};

/** Returned by berth_plugin_info_v1(); checked before anything else is called. */
typedef struct berth_plugin_info {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t kind;                 /* berth_plugin_kind */
  const char* id;                /* [a-z][a-z0-9_]*, equals the library name libberth_<id>.so */
  const char* version;           /* the plugin's own version, e.g. "0.1.0" */
  const char* description;       /* one line */
  const char* const* depends_on; /* NULL-terminated plugin ids, or NULL */
} berth_plugin_info;

/* ---- configuration ------------------------------------------------------------------ */

enum berth_config_type {
  BERTH_CONFIG_BOOL = 0,
  BERTH_CONFIG_INT = 1,
  BERTH_CONFIG_STRING = 2,
  BERTH_CONFIG_STRING_LIST = 3,
  BERTH_CONFIG_INT_MAP = 4 /* string -> integer or null */
};

/** A key of the plugin's own section (<id>.<name> in berth.yaml). */
typedef struct berth_config_key {
  uint32_t struct_size;
  berth_str name;         /* e.g. "secrets_key" */
  uint32_t type;          /* berth_config_type */
  berth_str default_json; /* the default value as JSON text */
  int64_t min;            /* BERTH_CONFIG_INT only; min > max means unbounded */
  int64_t max;
  berth_str description;
} berth_config_key;

/* ---- HTTP ----------------------------------------------------------------------------- */

enum berth_method {
  BERTH_GET = 0,
  BERTH_POST = 1,
  BERTH_PUT = 2,
  BERTH_PATCH = 3,
  BERTH_DELETE = 4,
  BERTH_HEAD = 5,
  BERTH_OPTIONS = 6,
  BERTH_ANY = 7 /* project-host routes only */
};

enum berth_route_flags {
  BERTH_ROUTE_PUBLIC = 1u << 0,      /* no token needed */
  BERTH_ROUTE_JSON_BODY = 1u << 1,   /* needs Content-Type: application/json (415), valid JSON
                                        (400) and the declared fields (422) */
  BERTH_ROUTE_RAW_BODY = 1u << 2,    /* raw bytes; the edge spools them to a file (BODY_FILE) */
  BERTH_ROUTE_PROJECT_HOST = 1u << 3 /* served on project hosts instead of the API host */
};

enum berth_field_type {
  BERTH_FIELD_STRING = 0,
  BERTH_FIELD_BOOL = 1,
  BERTH_FIELD_INT = 2,
  BERTH_FIELD_ARRAY = 3,
  BERTH_FIELD_OBJECT = 4,
  BERTH_FIELD_NUMBER = 5
};

/** A field of a JSON body the core checks before the handler runs (422 when wrong). */
typedef struct berth_field {
  berth_str name;
  uint32_t type; /* berth_field_type */
  uint32_t required;
} berth_field;

typedef void (*berth_route_fn)(void* user, const berth_request* req, berth_responder* resp);

/** A route. Management paths are exact, with ":param" segments and an optional final
 *  "*param" segment that takes the rest of the path; project-host routes use the same syntax.
 *  Two routes with the same method and path stop start-up. */
typedef struct berth_route {
  uint32_t struct_size;
  uint32_t method; /* berth_method */
  berth_str path;
  uint32_t flags;          /* berth_route_flags */
  uint64_t max_body_bytes; /* RAW_BODY routes: the edge's limit; 0 = the JSON limit (2 MB) */
  const berth_field* fields;
  size_t field_count;
  berth_route_fn fn; /* THREADING: called concurrently on core threads */
  void* user;
} berth_route;

/** What a request handle yields through host_api->req_get. */
enum berth_req_part {
  BERTH_REQ_METHOD = 0,      /* "GET", ... */
  BERTH_REQ_PATH = 1,        /* percent-decoded path */
  BERTH_REQ_RAW_PATH = 2,    /* as sent */
  BERTH_REQ_QUERY = 3,       /* raw query string without '?' */
  BERTH_REQ_QUERY_PARAM = 4, /* name -> first decoded value */
  BERTH_REQ_PATH_PARAM = 5,  /* name -> decoded value of ":name" / "*name" */
  BERTH_REQ_HEADER = 6,      /* case-insensitive name */
  BERTH_REQ_BODY = 7,        /* bytes (empty for spooled bodies) */
  BERTH_REQ_BODY_FILE = 8,   /* path of the file the edge spooled the body to, or absent */
  BERTH_REQ_HOST = 9,        /* Host without port, lower-cased */
  BERTH_REQ_ID = 10,         /* the request id used in logs */
  BERTH_REQ_ACCOUNT_ID = 11, /* the caller's account id (absent on public routes without token) */
  BERTH_REQ_ACCOUNT_EMAIL = 12,
  BERTH_REQ_TOKEN_ID = 13,
  BERTH_REQ_PEER = 14,          /* client address as the edge saw it */
  BERTH_REQ_QUERY_PARAM_AT = 15 /* name = decimal index: "name=value" of the n-th parameter */
};

enum berth_response_kind {
  BERTH_RESPONSE_BYTES = 0, /* body as given */
  BERTH_RESPONSE_FILE = 1,  /* body = absolute path of a file under data_dir; the edge sends it */
  BERTH_RESPONSE_PROXY = 2, /* body = "PORT" on 127.0.0.1; the edge proxies the request there */
  BERTH_RESPONSE_ERROR = 3  /* body = message; the core writes {"error": message, ...extra} */
};

typedef struct berth_header {
  berth_str name;
  berth_str value;
} berth_header;

typedef struct berth_response {
  uint32_t struct_size;
  uint32_t kind; /* berth_response_kind */
  int32_t status;
  berth_str content_type;
  berth_str body;
  const berth_header* headers;
  size_t header_count;
  berth_str error_extra_json; /* ERROR only: a JSON object whose fields join the error body */
} berth_response;

/* ---- jobs, hooks, services, installers ------------------------------------------------ */

typedef void (*berth_job_fn)(void* user, berth_job_ctx* ctx);

typedef struct berth_job {
  uint32_t struct_size;
  berth_str name;        /* job id is <plugin>.<name> */
  uint64_t period_ms;    /* run every period (a run never overlaps itself) */
  uint32_t run_on_start; /* 1: first run right after start */
  berth_job_fn fn;       /* THREADING: on the core's job pool */
  void* user;
} berth_job;

/** A hook answers BERTH_OK, or BERTH_ERR with {"status": N, "error": "..."} written to out. */
typedef int32_t (*berth_hook_fn)(void* user, berth_str event, berth_str payload_json,
                                 berth_buffer* out);

/** A service method: request and answer are JSON text; on BERTH_ERR, out holds
 *  {"status": N, "error": "..."}. THREADING: called concurrently. */
typedef int32_t (*berth_service_fn)(void* user, berth_str method, berth_str request_json,
                                    berth_buffer* out);

/** Installs a starter app into a project; request/answer JSON as the installer documents. */
typedef int32_t (*berth_install_fn)(void* user, berth_str request_json, berth_buffer* out);

typedef struct berth_installer {
  uint32_t struct_size;
  berth_str slug;
  berth_str name;
  berth_str description;
  berth_install_fn fn; /* NULL: a catalogue entry that cannot be installed */
  void* user;
} berth_installer;

/** Visitor for installer listings. */
typedef void (*berth_installer_visit_fn)(void* ctx, const berth_installer* installer);

/** One install of a starter app into one project (ABI 1.3), made by the core for the call of
 *  berth_app_install_fn and valid only during it. It is the installer's only power: what it
 *  does to the project it does through install_call, on the context's behalf. */
typedef struct berth_install_ctx berth_install_ctx;

/** Installs into the context's project; `request_json` is the body, already checked against
 *  the installer's fields. BERTH_OK with the answer (JSON) in `out`, or BERTH_ERR with
 *  {"status": N, "error": "..."}. THREADING: on any thread; the caller runs one install per
 *  project at a time. */
typedef int32_t (*berth_app_install_fn)(void* user, berth_install_ctx* ctx, berth_str request_json,
                                        berth_buffer* out);

/** A starter-app installer (ABI 1.3): a catalogue entry that can be installed. */
typedef struct berth_app_installer {
  uint32_t struct_size;
  berth_str slug;            /* [a-z0-9-], 1 to 40 characters; unique across plugins */
  berth_str name;            /* "n8n" */
  berth_str description;     /* one sentence */
  berth_str version;         /* the installer's own version, e.g. "1.0.0" */
  berth_str requires_json;   /* JSON array of the services install_call may reach, e.g.
                                ["runtime.releases.v1", "projects.secrets.v1"]; a missing one
                                makes the installer unavailable, never half-run */
  const berth_field* fields; /* the request body's fields, checked as a route's (422) */
  size_t field_count;
  berth_app_install_fn fn;
  void* user;
} berth_app_installer;

typedef void (*berth_app_installer_visit_fn)(void* ctx, const berth_app_installer* installer,
                                             berth_str owner, berth_str missing_service);

/** An account as the core knows it; a team is an account with members. */
typedef struct berth_account {
  berth_str id;
  berth_str slug;
  berth_str email; /* absent for teams */
  berth_str plan;
  uint32_t is_team;
  uint32_t role; /* in membership listings: berth_role of the user in this account */
  int64_t created_at;
} berth_account;

enum berth_role { BERTH_ROLE_MEMBER = 0, BERTH_ROLE_ADMIN = 1, BERTH_ROLE_OWNER = 2 };

typedef void (*berth_account_visit_fn)(void* ctx, const berth_account* account);

/** An edge cache rule (ABI 1.1): GET/HEAD answers for `host` that the plugin answers with a
 *  cached proxy (header X-Berth-Cache-Ttl on a PROXY answer) are kept by the edge. `key` is an
 *  opaque token in the cache key ([A-Za-z0-9._-]{1,100}): a new key is a fresh cache (a purge).
 *  `ttl_seconds` is how long an answer is kept when it says nothing itself (Cache-Control
 *  max-age/s-maxage, Expires); 0 keeps only answers that say how long. At most 1 year. */
typedef struct berth_edge_cache_rule {
  uint32_t struct_size;
  berth_str host; /* a plain DNS name, as in set_custom_hosts */
  berth_str key;
  uint32_t ttl_seconds;
} berth_edge_cache_rule;

/** An edge file tree (ABI 1.2): on project hosts, the edge answers a GET or HEAD whose path
 *  starts with `prefix` by itself when the file <root>/<host>/<rest> exists, where <host> is
 *  the request's host (lower case, no port) and <rest> the decoded path after the prefix; any
 *  other request, a missing file or a path with "//", "/." or an encoded '/', '.' or '\\'
 *  goes to berthd as before. The plugin keeps <root>/<host> (a folder, or a symbolic link to
 *  one) true for the hosts it serves: the tree is a cache of what berthd would answer.
 *  `prefix` is "/" or "/<segment>/" ([A-Za-z0-9._-]); `root` is absolute and below data_dir;
 *  `index` (may be empty) is tried for a path ending in '/'; `types_file` (may be empty) is an
 *  nginx file of `types { ... }` naming content types by extension, else the edge's table. */
typedef struct berth_edge_files_rule {
  uint32_t struct_size;
  berth_str prefix;
  berth_str root;
  berth_str index;
  berth_str types_file;
} berth_edge_files_rule;

/** A running app the edge may proxy to without asking berthd (ABI 1.2): requests for `host`
 *  go straight to 127.0.0.1:port over kept-alive connections, through the edge cache when the
 *  host has a cache rule. When the app does not answer (502), the request goes to berthd, which
 *  decides as before (a stopped app is woken). */
typedef struct berth_edge_app_rule {
  uint32_t struct_size;
  berth_str host; /* a plain DNS name, as in set_custom_hosts */
  uint32_t port;  /* 1024..65535 */
} berth_edge_app_rule;

enum berth_db_status { BERTH_DB_OK = 0, BERTH_DB_SQL_ERROR = 1, BERTH_DB_UNAVAILABLE = 2 };

/* ---- what the core offers --------------------------------------------------------------- */

typedef struct berth_host_api {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;

  /* Diagnostics. report_error records why register/start failed; the core names the plugin. */
  void (*log)(berth_host*, uint32_t level, berth_str request_id, berth_str project,
              berth_str message);
  void (*report_error)(berth_host*, berth_str message);

  /* Registration (only inside berth_plugin_register_v1). BERTH_ERR when closed or invalid. */
  int32_t (*declare_config)(berth_host*, const berth_config_key*);
  int32_t (*add_route)(berth_host*, const berth_route*);
  int32_t (*add_migration)(berth_host*, uint32_t version, berth_str name, berth_str sql);
  int32_t (*add_job)(berth_host*, const berth_job*);
  int32_t (*add_hook)(berth_host*, berth_str event, berth_hook_fn, void* user);
  int32_t (*offer_service)(berth_host*, berth_str name, berth_service_fn, void* user);
  int32_t (*add_installer)(berth_host*, const berth_installer*);
  /* The plugin's instance, handed back to start/stop and destroyed after stop. */
  void (*set_instance)(berth_host*, void* instance, void (*destroy)(void*));

  /* Configuration: the plugin's section as a JSON object with defaults filled in (valid for
   * the process's life), and a few core settings by dotted name ("server.apps_domain",
   * "data_dir", "database.url", "server.listen"). */
  berth_str (*config_json)(berth_host*);
  berth_str (*core_setting)(berth_host*, berth_str key);

  /* Requests and responses. */
  berth_str (*req_get)(const berth_request*, uint32_t part, berth_str name);
  void (*respond)(berth_responder*, const berth_response*);

  /* Buffers (for hook, service and installer answers). */
  berth_buffer* (*buffer_new)(void);
  void (*buffer_append)(berth_buffer*, berth_str bytes);
  berth_str (*buffer_view)(const berth_buffer*);
  void (*buffer_free)(berth_buffer*);

  /* Other plugins. */
  int32_t (*call_service)(berth_host*, berth_str name, berth_str method, berth_str request_json,
                          berth_buffer* out);
  int32_t (*fire_hook)(berth_host*, berth_str event, berth_str payload_json, berth_buffer* out);
  void (*list_installers)(berth_host*, berth_installer_visit_fn, void* ctx);

  /* Accounts and teams (owned by the core). */
  int32_t (*account_get)(berth_host*, berth_str id_or_slug, berth_account_visit_fn, void* ctx);
  /* The user's own account (role OWNER) and every team it belongs to, with its role. */
  int32_t (*account_memberships)(berth_host*, berth_str user_account_id, berth_account_visit_fn,
                                 void* ctx);
  /* Projects allowed by a plan; -1 = no limit, -2 = unknown plan. */
  int64_t (*plan_project_limit)(berth_host*, berth_str plan);

  /* The control-plane database. A NULL session runs one statement on a pooled connection.
   * params: ptr == NULL is SQL NULL. Results are never NULL; free them. */
  int32_t (*db_session_open)(berth_host*, berth_db_session** out);
  void (*db_session_close)(berth_db_session*);
  berth_db_result* (*db_exec)(berth_host*, berth_db_session*, berth_str sql,
                              const berth_str* params, size_t param_count);
  uint32_t (*db_result_status)(const berth_db_result*); /* berth_db_status */
  berth_str (*db_result_error)(const berth_db_result*);
  berth_str (*db_result_sqlstate)(const berth_db_result*);
  int64_t (*db_result_rows)(const berth_db_result*);
  int32_t (*db_result_columns)(const berth_db_result*);
  berth_str (*db_result_column_name)(const berth_db_result*, int32_t column);
  berth_str (*db_result_value)(const berth_db_result*, int64_t row, int32_t column);
  int64_t (*db_result_affected)(const berth_db_result*);
  void (*db_result_free)(berth_db_result*);

  /* Jobs. */
  int32_t (*job_stop_requested)(const berth_job_ctx*);

  /* The edge: hosts outside apps_domain that are project traffic (verified custom domains).
   * Replaces the plugin's previous list; the core reloads the edge. */
  int32_t (*set_custom_hosts)(berth_host*, const berth_str* hosts, size_t count);

  /* ---- ABI 1.1 ---- (check struct_size before calling what follows) */

  /* The edge cache: replaces the plugin's whole rule set (count 0 clears it); the core
   * reloads the edge. `rules` points at `count` rules, each rules[0].struct_size bytes apart.
   * A bad rule (host, key, ttl, a host twice) fails the whole call, changing nothing; the
   * reason goes to the core's log. */
  int32_t (*set_edge_cache)(berth_host*, const berth_edge_cache_rule* rules, size_t count);

  /* ---- ABI 1.2 ---- (check struct_size before calling what follows) */

  /* Edge file trees and running apps: each replaces the plugin's whole set (count 0 clears
   * it), as set_edge_cache does, with the same array stride and all-or-nothing checking. */
  int32_t (*set_edge_files)(berth_host*, const berth_edge_files_rule* rules, size_t count);
  int32_t (*set_edge_apps)(berth_host*, const berth_edge_app_rule* rules, size_t count);

  /* ---- ABI 1.3 ---- (check struct_size before calling what follows) */

  /* Installers (registration only): an installer of a plugin of any kind. */
  int32_t (*add_app_installer)(berth_host*, const berth_app_installer*);
  /* Every ABI 1.3 installer, with the plugin that offers it and the first of its required
   * services that is missing (empty when it can run). */
  void (*list_app_installers)(berth_host*, berth_app_installer_visit_fn, void* ctx);
  /* Runs the installer `slug` through the core, on this thread. `context_json` is
   * {"project": {"id", "name", "account_id", ...}, "caller": account id, "request_id"}: the
   * caller (the plugin serving the install route) has checked the caller's access. The core
   * checks the body against the installer's fields (BERTH_ERR 422, the route's words), makes
   * the context, calls the installer and answers what it answered. Unknown slug: 404. */
  int32_t (*run_app_install)(berth_host*, berth_str slug, berth_str context_json,
                             berth_str request_json, berth_buffer* out);
  /* Inside an install: the context as JSON ({"project", "caller", "request_id", "installer",
   * "payload_dir"}; payload_dir is where the installer's plugin installed its files). */
  berth_str (*install_context)(berth_install_ctx*);
  /* Inside an install: a service call on the context's behalf. Only the services the
   * installer declared in requires_json (else BERTH_ERR 403); the core sets "project_id" and
   * "account_id" in the request to the context's own. */
  int32_t (*install_call)(berth_install_ctx*, berth_str service, berth_str method,
                          berth_str request_json, berth_buffer* out);
  /* Inside an install: a line in berthd's log, tagged with the project and request id. */
  void (*install_log)(berth_install_ctx*, uint32_t level, berth_str message);
} berth_host_api;

/* ---- what every plugin exports ---------------------------------------------------------- */

typedef const berth_plugin_info* (*berth_plugin_info_fn)(void);
typedef int32_t (*berth_plugin_register_fn)(berth_host*, const berth_host_api*);
typedef int32_t (*berth_plugin_start_fn)(berth_host*, void* instance);
typedef void (*berth_plugin_stop_fn)(berth_host*, void* instance);

BERTH_EXPORT const berth_plugin_info* berth_plugin_info_v1(void);
BERTH_EXPORT int32_t berth_plugin_register_v1(berth_host* host, const berth_host_api* api);
BERTH_EXPORT int32_t berth_plugin_start_v1(berth_host* host, void* instance);
BERTH_EXPORT void berth_plugin_stop_v1(berth_host* host, void* instance);

#ifdef __cplusplus
}
#endif

#endif /* BERTH_ABI_H */
