#include "php_cgi.hpp"

namespace berth::runtime {

std::vector<std::string> phpCgiCommand() {
  return {"php-cgi", "-b", "127.0.0.1:$PORT"};
}

std::vector<std::string> phpBuildStep() {
  return {"mkdir", "-p", kPhpSessionsFolder};
}

std::vector<std::string> phpCgiArgv(const std::vector<std::string>& release_argv,
                                    const std::string& sessions_dir) {
  std::vector<std::string> argv = release_argv.empty() ? phpCgiCommand() : release_argv;
  const std::vector<std::string> ini = {
      // The edge names the script exactly (SCRIPT_FILENAME); PHP must not go looking for
      // another one up the path (the classic "/upload.jpg/x.php" hole).
      "cgi.fix_pathinfo=0",
      // Errors go to the project's logs, never into a visitor's page.
      "display_errors=0",
      "display_startup_errors=0",
      "log_errors=1",
      "error_log=",         // empty: php-cgi's own stderr...
      "fastcgi.logging=0",  // ...rather than FastCGI's stderr stream, which only nginx sees
      "expose_php=0",
      "session.save_path=" + sessions_dir,
      // Debian leaves old sessions to a cron job that knows only its own folder.
      "session.gc_probability=1",
  };
  for (const auto& setting : ini) {
    argv.emplace_back("-d");
    argv.push_back(setting);
  }
  return argv;
}

std::vector<std::pair<std::string, std::string>> phpCgiEnvironment() {
  return {{"PHP_FCGI_CHILDREN", "4"},
          {"PHP_FCGI_MAX_REQUESTS", "500"},
          {"FCGI_WEB_SERVER_ADDRS", "127.0.0.1"}};
}

std::vector<std::string> phpSandboxPaths() {
  return {"/etc/php"};
}

}  // namespace berth::runtime
