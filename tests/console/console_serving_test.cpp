// ctest-label: api (starts a real berthd)
// The web console as the edge serves it on the API host: /console redirects to /console/, the
// files come with a CSP that allows no inline script or eval and no framing, nosniff and
// no-referrer; the versioned vendor files are cached a year and everything else revalidated,
// all gzipped on request; nothing but GET and HEAD; and a project host never shows the console.
#include <gtest/gtest.h>

#include <regex>

#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;

namespace {

class ConsoleServing : public BerthdSuite {
 protected:
  static void SetUpTestSuite() { startServer(); }
  static HttpResult get(const std::string& path, const std::string& method = "GET") {
    HttpRequestSpec spec;
    spec.method = method;
    spec.url = server->baseUrl() + path;
    return send(spec);
  }
  // The headers every console file carries.
  static void expectGuarded(const HttpResult& r, const std::string& path) {
    const std::string csp = r.header("content-security-policy");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << path << ": " << csp;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << path << ": " << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << path << ": " << csp;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << path << ": " << csp;
    EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos) << path << ": " << csp;
    EXPECT_EQ(r.header("x-content-type-options"), "nosniff") << path;
    EXPECT_EQ(r.header("referrer-policy"), "no-referrer") << path;
    EXPECT_EQ(r.header("x-frame-options"), "DENY") << path;
  }
};

TEST_F(ConsoleServing, ConsoleRedirectsToItsFolder) {
  auto r = get("/console");
  EXPECT_EQ(r.status, 301);
  EXPECT_EQ(r.header("location"), "/console/");
}

TEST_F(ConsoleServing, IndexIsServedGuardedAndRevalidated) {
  auto r = get("/console/");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.header("content-type").find("text/html"), std::string::npos);
  EXPECT_NE(r.body.find("<script type=\"module\" src=\"src/app.js\"></script>"), std::string::npos);
  // No inline script: every <script> names its file.
  EXPECT_FALSE(std::regex_search(r.body, std::regex("<script(?![^>]*\\bsrc=)[^>]*>")));
  expectGuarded(r, "/console/");
  EXPECT_EQ(r.header("cache-control"), "no-cache");
  EXPECT_FALSE(r.header("etag").empty());
  expectGuarded(get("/console/index.html"), "/console/index.html");
}

TEST_F(ConsoleServing, ModulesAreJavaScriptAndVendorFilesAreKeptAYear) {
  auto app = get("/console/src/app.js");
  ASSERT_EQ(app.status, 200);
  EXPECT_NE(app.header("content-type").find("javascript"), std::string::npos);
  EXPECT_EQ(app.header("cache-control"), "no-cache");
  expectGuarded(app, "/console/src/app.js");

  // Compressed for a browser that asks.
  HttpRequestSpec gzipped;
  gzipped.url = server->baseUrl() + "/console/src/app.js";
  gzipped.headers = {"Accept-Encoding: gzip"};
  auto compressed = send(gzipped);
  EXPECT_EQ(compressed.status, 200);
  EXPECT_EQ(compressed.header("content-encoding"), "gzip");
  expectGuarded(compressed, "/console/src/app.js (gzip)");

  // The vendored files the one importer names, each cached a year.
  auto ui = get("/console/src/ui.js");
  ASSERT_EQ(ui.status, 200);
  std::smatch m;
  std::string text = ui.body;
  int vendored = 0;
  static const std::regex imported("'\\.\\./(vendor/[a-z-]+-[0-9.]+\\.js)'");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), imported);
       it != std::sregex_iterator(); ++it) {
    const std::string path = "/console/" + (*it)[1].str();
    auto r = get(path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_NE(r.header("content-type").find("javascript"), std::string::npos) << path;
    EXPECT_EQ(r.header("cache-control"), "public, max-age=31536000, immutable") << path;
    expectGuarded(r, path);
    ++vendored;
  }
  EXPECT_EQ(vendored, 3) << text;
}

TEST_F(ConsoleServing, OnlyGetAndHead) {
  EXPECT_EQ(get("/console/", "HEAD").status, 200);
  auto post = get("/console/index.html", "POST");
  EXPECT_EQ(post.status, 403);
  auto missing = get("/console/nothing-here.js");
  EXPECT_EQ(missing.status, 404);
  expectGuarded(missing, "/console/nothing-here.js");
}

TEST_F(ConsoleServing, AProjectHostNeverShowsTheConsole) {
  auto r = sendToHost(server->baseUrl(), "someproject.localhost", "GET", "/console/");
  EXPECT_EQ(r.body.find("Berth console"), std::string::npos) << r.body;
  EXPECT_TRUE(r.header("content-security-policy").empty());
}

}  // namespace
