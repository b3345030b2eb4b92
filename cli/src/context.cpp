#include "command.hpp"
#include "errors.hpp"

namespace berth::client {

const HttpClient& Context::api() {
  if (settings.token.empty() && args.has("context") && !settings.context_known)
    throw usageError("no context called " + settings.context + "; berth context ls lists them");
  if (settings.token.empty())
    throw CliError(kExitNotSignedIn,
                   "not signed in to " + settings.url + "; run berth login (or set BERTH_TOKEN)");
  if (!api_) api_ = std::make_unique<HttpClient>(settings.url, settings.token);
  return *api_;
}

const std::string& Context::project() {
  if (settings.project.empty())
    throw usageError(
        "which project? pass -p PROJECT, set BERTH_PROJECT, or run berth link PROJECT in the "
        "app's folder");
  return settings.project;
}

std::string Context::projectPath() {
  return "/projects/" + urlEncode(project());
}

const std::vector<std::string>& globalOptions() {
  static const std::vector<std::string> options = {"json", "yes",     "help",
                                                   "url",  "project", "context"};
  return options;
}

}  // namespace berth::client
