// ctest-label: api (starts a real berthd)
// Console sign-in against a real berthd: one-time sign-in links, sessions started by a link or
// a token, the cookie's attributes, the console-only rule for cookie requests that change
// things, the end of a session, failed attempts throttled, and the secrets key of a new
// install (berthd secrets-key, which scripts/start.sh calls).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <regex>
#include <thread>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

class ApiSessions : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    startServer();
    token = server->createAccountWithToken("ann@example.com");
  }
  static void TearDownTestSuite() { dropServer(); }

  // berthd account login-link; returns the code of the printed address.
  static std::string loginCode(const std::string& email, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"account", "login-link", "--email", email};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = server->admin(args);
    EXPECT_TRUE(r.status.ok()) << r.output;
    std::smatch m;
    std::string out = trimmed(r.output);
    static const std::regex link(
        "^http://127\\.0\\.0\\.1:([0-9]+)/console/#code=([A-Za-z0-9]{32})$");
    EXPECT_TRUE(std::regex_match(out, m, link)) << out;
    if (m.size() != 3) return "";
    EXPECT_EQ(m[1].str(), std::to_string(server->port()));
    return m[2].str();
  }

  static HttpResult signIn(const std::string& code, const std::string& source = "") {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = server->baseUrl() + "/session";
    spec.body = nlohmann::json{{"code", code}}.dump();
    spec.headers = {"Content-Type: application/json"};
    spec.source_address = source;
    return send(spec);
  }

  // The cookie's value from a Set-Cookie answer.
  static std::string cookieOf(const HttpResult& r) {
    std::smatch m;
    std::string set = r.header("set-cookie");
    static const std::regex value("^__Host-berth_session=([A-Za-z0-9]+);");
    if (!std::regex_search(set, m, value)) return "";
    return m[1].str();
  }

  static std::string newSession(const std::string& email = "ann@example.com") {
    auto r = signIn(loginCode(email));
    EXPECT_EQ(r.status, 201) << r.body;
    return cookieOf(r);
  }

  static HttpResult withCookie(const std::string& method, const std::string& path,
                               const std::string& session, std::vector<std::string> headers = {},
                               const std::string& body = "") {
    HttpRequestSpec spec;
    spec.method = method;
    spec.url = server->baseUrl() + path;
    spec.body = body;
    spec.headers = std::move(headers);
    spec.headers.push_back("Cookie: theme=dark; __Host-berth_session=" + session);
    return send(spec);
  }

  static berth::core::Pool db() { return {server->databaseUrl(), 1, std::chrono::seconds(5)}; }

  static std::string token;
};
std::string ApiSessions::token;

// A change reaches the auth cache through NOTIFY, a moment after it commits: retries while the
// old answer stands, for at most a second.
HttpResult untilNot200(const std::function<HttpResult()>& request) {
  HttpResult r = request();
  for (int i = 0; i < 100 && r.status == 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    r = request();
  }
  return r;
}

const std::vector<std::string> kConsole = {"Content-Type: application/json",
                                           "Sec-Fetch-Site: same-origin", "X-Berth-Console: 1"};

}  // namespace

TEST_F(ApiSessions, SignInByLinkGivesACookieThatAuthenticates) {
  std::string code = loginCode("ann@example.com");
  auto r = signIn(code);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.json()["email"], "ann@example.com");
  EXPECT_EQ(r.header("cache-control"), "no-store");
  std::string session = cookieOf(r);
  ASSERT_FALSE(session.empty()) << r.header("set-cookie");
  EXPECT_EQ(withCookie("GET", "/projects", session).status, 200);
  auto me = withCookie("GET", "/me", session);
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json()["email"], "ann@example.com");
  std::string wrong = session;
  wrong[0] = wrong[0] == 'A' ? 'B' : 'A';
  EXPECT_EQ(withCookie("GET", "/projects", wrong).status, 401);
  // Only digests are stored.
  auto pool = db();
  EXPECT_EQ(
      pool.exec("SELECT 1 FROM core.sessions WHERE digest = $1 OR digest = $2", {session, code})
          .rows(),
      0);
  EXPECT_EQ(pool.exec("SELECT 1 FROM core.signin_codes WHERE digest = $1", {code}).rows(), 0);
}

TEST_F(ApiSessions, TheCookieIsHostOnlySecureHttpOnlyAndStrict) {
  auto r = signIn(loginCode("ann@example.com"));
  ASSERT_EQ(r.status, 201) << r.body;
  std::string set = r.header("set-cookie");
  EXPECT_EQ(set.rfind("__Host-berth_session=", 0), 0u) << set;
  EXPECT_NE(set.find("; Path=/;"), std::string::npos) << set;
  EXPECT_NE(set.find("; Secure"), std::string::npos) << set;
  EXPECT_NE(set.find("; HttpOnly"), std::string::npos) << set;
  EXPECT_NE(set.find("; SameSite=Strict"), std::string::npos) << set;
  EXPECT_EQ(set.find("Domain"), std::string::npos) << set;
  EXPECT_NE(set.find("; Max-Age=2592000"), std::string::npos) << set;  // 30 days
}

TEST_F(ApiSessions, ALinkWorksOnce) {
  std::string code = loginCode("ann@example.com");
  ASSERT_EQ(signIn(code).status, 201);
  auto again = signIn(code);
  EXPECT_EQ(again.status, 401) << again.body;
  EXPECT_EQ(errorText(again), "that sign-in link is not valid, was used already, or expired");
  EXPECT_TRUE(again.header("set-cookie").empty());
}

TEST_F(ApiSessions, AnExpiredLinkIsRefused) {
  std::string code = loginCode("ann@example.com", {"--minutes", "1"});
  auto pool = db();
  pool.exec(
      "UPDATE core.signin_codes SET expires_at = extract(epoch FROM now())::bigint - 1 "
      "WHERE used_at IS NULL");
  auto r = signIn(code);
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_TRUE(r.header("set-cookie").empty());
}

TEST_F(ApiSessions, SignInByToken) {
  auto r = server->api(token).post("/session", nlohmann::json::object());
  ASSERT_EQ(r.status, 201) << r.body;
  std::string session = cookieOf(r);
  ASSERT_FALSE(session.empty());
  EXPECT_EQ(withCookie("GET", "/projects", session).status, 200);
  auto bad = server->api("bth_" + std::string(40, 'x')).post("/session", nlohmann::json::object());
  EXPECT_EQ(bad.status, 401);
  EXPECT_TRUE(bad.header("set-cookie").empty());
  // A sign-in body has a limit of its own (4 KB): a code is 32 characters.
  auto large = server->api().post("/session", {{"code", std::string(5000, 'x')}});
  EXPECT_EQ(large.status, 413);
  EXPECT_EQ(large.json().value("error", ""),
            "the request body is too large for this route (limit 4 KB)");
}

TEST_F(ApiSessions, AForgedCrossSitePostIsRefused) {
  std::string session = newSession();
  std::string body = nlohmann::json{{"name", "forged01"}}.dump();
  // A page on a project host (the same site as the API) posting with the user's cookie.
  for (const auto& headers : std::vector<std::vector<std::string>>{
           {"Content-Type: application/json", "Origin: http://evil.localhost",
            "Sec-Fetch-Site: same-site"},
           {"Content-Type: application/json", "Origin: http://evil.localhost",
            "Sec-Fetch-Site: same-site", "X-Berth-Console: 1"},
           {"Content-Type: application/json", "Sec-Fetch-Site: same-origin"},
           {"Content-Type: text/plain"}}) {
    auto r = withCookie("POST", "/projects", session, headers, body);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(errorText(r),
              "a request signed in by the session cookie must come from the console "
              "(Sec-Fetch-Site: same-origin or the API's Origin, and X-Berth-Console: 1)");
  }
  EXPECT_EQ(withCookie("GET", "/projects/forged01", session).status, 404);
  // The console's own request passes the rule (and meets the route's own checks).
  auto own = withCookie("POST", "/projects", session, kConsole,
                        nlohmann::json{{"name", "Not A Name"}}.dump());
  EXPECT_NE(own.status, 403) << own.body;
  EXPECT_NE(own.status, 401) << own.body;
  auto origin = withCookie(
      "POST", "/projects", session,
      {"Content-Type: application/json", "Origin: " + server->baseUrl(), "X-Berth-Console: 1"},
      nlohmann::json{{"name", "Not A Name"}}.dump());
  EXPECT_NE(origin.status, 403) << origin.body;
}

TEST_F(ApiSessions, AnEndedSessionIsRefusedAtOnce) {
  std::string session = newSession();
  ASSERT_EQ(withCookie("GET", "/projects", session).status, 200);  // now in the cache
  auto end = withCookie("DELETE", "/session", session, kConsole);
  ASSERT_EQ(end.status, 204) << end.body;
  EXPECT_NE(end.header("set-cookie").find("Max-Age=0"), std::string::npos);
  auto r = withCookie("GET", "/projects", session);
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_EQ(errorText(r), "your session has ended; sign in again");
  // Ending it is itself a console request.
  std::string other = newSession();
  EXPECT_EQ(withCookie("DELETE", "/session", other).status, 403);
  EXPECT_EQ(withCookie("GET", "/projects", other).status, 200);
}

TEST_F(ApiSessions, ExpiryAndAccountRemovalEndSessions) {
  std::string session = newSession();
  ASSERT_EQ(withCookie("GET", "/projects", session).status, 200);
  auto pool = db();
  pool.exec("UPDATE core.sessions SET expires_at = extract(epoch FROM now())::bigint - 1");
  EXPECT_EQ(untilNot200([&] { return withCookie("GET", "/projects", session); }).status, 401);

  ASSERT_TRUE(server->admin({"account", "create", "--email", "gone@example.com"}).status.ok());
  std::string gone = newSession("gone@example.com");
  ASSERT_EQ(withCookie("GET", "/projects", gone).status, 200);
  pool.exec("DELETE FROM core.accounts WHERE email = 'gone@example.com'");
  EXPECT_EQ(untilNot200([&] { return withCookie("GET", "/projects", gone); }).status, 401);
  EXPECT_EQ(pool.exec("SELECT 1 FROM core.sessions s LEFT JOIN core.accounts a "
                      "ON a.id = s.account_id WHERE a.id IS NULL")
                .rows(),
            0);
}

TEST_F(ApiSessions, CookieBesideAuthorizationIsRefused) {
  std::string session = newSession();
  auto r = withCookie("GET", "/projects", session, {"Authorization: Bearer " + token});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorText(r), "send either the session cookie or an Authorization header, not both");
}

TEST_F(ApiSessions, CookieOnAProjectHostIsIgnored) {
  std::string session = newSession();
  auto r = sendToHost(server->baseUrl(), "someapp.localhost", "GET", "/projects",
                      {"Cookie: __Host-berth_session=" + session});
  EXPECT_NE(r.status, 200) << r.body;
  EXPECT_EQ(r.body.find("\"projects\""), std::string::npos) << r.body;
}

TEST_F(ApiSessions, FailedAttemptsAreThrottledPerAddress) {
  const std::string address = "127.0.0.77";  // its own bucket; other tests come from 127.0.0.1
  std::string wrong(32, 'z');
  for (int i = 0; i < 10; ++i) {
    auto r = signIn(wrong, address);
    ASSERT_EQ(r.status, 401) << i << " " << r.body << r.error;
  }
  auto r = signIn(wrong, address);
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(errorText(r), "too many failed sign-in attempts; try again later");
  EXPECT_GT(std::stoi(r.header("retry-after").empty() ? "0" : r.header("retry-after")), 0);
  // A good code from that address waits too; another address is not held up.
  std::string code = loginCode("ann@example.com");
  EXPECT_EQ(signIn(code, address).status, 429);
  EXPECT_EQ(signIn(code).status, 201);
}

TEST_F(ApiSessions, SecretsKeyFileIsMadeOnceAndPrivate) {
  std::string dir = makeTempDir("secrets-key");
  std::string file = dir + "/keys/secrets.key";
  auto first = server->admin({"secrets-key", "--file", file});
  ASSERT_TRUE(first.status.ok()) << first.output;
  EXPECT_EQ(trimmed(first.output), file);
  std::string key = trimmed(readFile(file));
  EXPECT_TRUE(std::regex_match(key, std::regex("^[0-9a-f]{64}$"))) << key;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto second = server->admin({"secrets-key", "--file", file});
  ASSERT_TRUE(second.status.ok()) << second.output;
  EXPECT_EQ(trimmed(readFile(file)), key);  // made once

  // The operator's own key wins, and a key configured as empty stays empty: no file.
  std::string other = dir + "/other.key";
  for (const std::string& configured : {std::string(64, 'a'), std::string()}) {
    auto r = server->admin(
        {"--set", "projects.secrets_key=" + configured, "secrets-key", "--file", other});
    ASSERT_TRUE(r.status.ok()) << r.output;
    EXPECT_EQ(trimmed(r.output), "");
    EXPECT_NE(::access(other.c_str(), F_OK), 0);
  }
  removeTree(dir);
}

TEST(ApiSessionsSecrets, AKeyFileTurnsSecretsOn) {
  std::string dir = makeTempDir("secrets-file");
  std::string file = dir + "/secrets.key";
  {
    BerthdProcess plain;
    plain.start();
    std::string t = plain.createAccountWithToken("kim@example.com");
    auto r = plain.api(t).get("/projects/nothing/secrets");
    EXPECT_EQ(r.status, 501) << r.body;
    ASSERT_TRUE(plain.admin({"secrets-key", "--file", file}).status.ok());
  }
  {
    BerthdOptions options;
    options.set = {"projects.secrets_key_file=" + file};
    BerthdProcess server(options);
    server.start();
    std::string t = server.createAccountWithToken("kim@example.com");
    auto r = server.api(t).get("/projects/nothing/secrets");
    EXPECT_EQ(r.status, 404) << r.body;  // past the 501: secrets are configured
  }
  removeTree(dir);
}
