// berth api METHOD PATH [-d JSON|@FILE|-]: any route, with the token; the answer's body on
// stdout as it came, and a refusal's error on stderr with the usual exit code.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "errors.hpp"
#include "terminal.hpp"

namespace berth::client {

namespace {

int api(Context& ctx) {
  std::string method = ctx.word(0);
  std::transform(method.begin(), method.end(), method.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  std::string path = ctx.word(1);
  if (path.empty() || path[0] != '/') throw usageError("the path starts with /, as in /projects");
  HttpRequest req;
  req.method = method;
  req.target = path;
  req.timeout_seconds = 300;
  if (auto data = ctx.args.value("data")) {
    std::string body = *data;
    if (body == "-") {
      body = readAllStdin();
    } else if (!body.empty() && body[0] == '@') {
      std::ifstream in(body.substr(1), std::ios::binary);
      if (!in) throw usageError("could not read " + body.substr(1));
      std::stringstream s;
      s << in.rdbuf();
      body = s.str();
    }
    req.body = body;
    req.send_body = true;
    req.content_type = "application/json";
  }
  // The token is needed unless the route is public; send one when there is one.
  HttpClient client = ctx.settings.token.empty() ? ctx.anonymous()
                                                 : HttpClient(ctx.settings.url, ctx.settings.token);
  auto r = client.send(req);
  if (r.status >= 400) {
    if (ctx.out.json() && !r.body.empty())
      std::cout << r.body << (r.body.back() == '\n' ? "" : "\n");
    throwIfRefused(r);
  }
  if (ctx.out.json()) {
    auto j = r.json();
    if (!j.is_discarded()) {
      ctx.out.printJson(j);
      return kExitOk;
    }
  }
  std::cout << r.body;
  if (!r.body.empty() && r.body.back() != '\n') std::cout << "\n";
  return kExitOk;
}

}  // namespace

void addApiCommands(std::vector<Command>& out) {
  out.push_back({"api",
                 "berth api METHOD PATH [-d JSON|@FILE|-]",
                 "call any route of the API (docs/openapi.yaml)",
                 {"data"},
                 2,
                 2,
                 api});
}

}  // namespace berth::client
