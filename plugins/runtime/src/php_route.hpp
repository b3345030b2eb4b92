// Which answer a request to a PHP release gets, the way the usual nginx + PHP configuration
// decides it (try_files $uri $uri/ /index.php): a file of the release that is not PHP is sent
// by the edge as a file; a *.php file is run; a folder runs its index.php (or sends its
// index.html); anything else runs /index.php, the front controller, with the request's own
// URI. PHP source, hidden files and anything outside the release are never sent.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace berth::runtime {

struct PhpRoute {
  enum class Kind { File, Script, Redirect, NotFound } kind = Kind::NotFound;
  std::string path;          // File: absolute path inside the release
  std::string content_type;  // File
  std::string script_name;   // Script: "/index.php", "/admin/users.php" (below the release)
  std::string location;      // Redirect (301): a folder's path with its slash added
};

// `request_path` is the raw path of the request (percent-encoded, without the query).
// Not found: bad percent-encoding, a NUL, a ".." part, a hidden part (".env", ".git"; but
// ".well-known" is served), PHP source that is not *.php (.phtml, .inc ...), or no index.php
// for the front controller. A path through a link is judged by where the link leads.
PhpRoute phpRouteFor(const std::filesystem::path& release_dir, std::string_view request_path);

// True for names PHP source lives in: *.php (run), and *.phtml, *.php3-8, *.phps, *.phar,
// *.inc (never sent as files, never run); any letter case.
bool isPhpSourceName(std::string_view file_name);
bool isPhpScriptName(std::string_view file_name);  // *.php, any case

}  // namespace berth::runtime
