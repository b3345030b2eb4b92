// What a person does in a freshly installed n8n, over n8n's own REST API through the project's
// address on the edge: open the editor, create the owner (the first visitor does), save a
// workflow with a Webhook trigger answered by a Respond-to-Webhook node, activate it, call it.
// Shared by the end-to-end test and the install benchmark. The calls were checked against
// n8n 2.41.1: activation is POST /rest/workflows/{id}/activate with the saved versionId, and it
// takes effect a moment after its 200; the auth cookie is bound to the browser-id header it
// was issued with.
#pragma once
#include <chrono>
#include <string>
#include <thread>

#include "runtime/host_requests.hpp"

namespace berth::testing::n8n_editor {

inline constexpr const char* kEditorTitle = "<title>n8n.io - Workflow Automation</title>";
inline constexpr const char* kWebhookPath = "berth-e2e";
inline constexpr const char* kWebhookAnswer = "berth-e2e-ok";
inline constexpr const char* kBrowserId = "browser-id: berth-e2e-browser";
// A stopped n8n answers once it has started: 10 to 30 s warm, longer on a busy machine.
inline constexpr long kWakeTimeoutMs = 300000;

inline HttpResult onN8n(const BerthdProcess& server, const std::string& project,
                        const std::string& method, const std::string& path,
                        const std::string& cookie = "", const std::string& body = "") {
  std::vector<std::string> headers = {kBrowserId};
  if (!cookie.empty()) headers.push_back("Cookie: " + cookie);
  if (!body.empty()) headers.push_back("Content-Type: application/json");
  return sendToHost(server.baseUrl(), project + ".localhost", method, path, headers, body,
                    kWakeTimeoutMs);
}

// "n8n-auth=<jwt>" from a Set-Cookie header, or "".
inline std::string authCookie(const HttpResult& r) {
  const std::string set = r.header("set-cookie");
  if (set.rfind("n8n-auth=", 0) != 0) return "";
  return set.substr(0, set.find(';'));
}

// The owner account; returns its auth cookie ("" and a test failure when refused).
inline std::string createOwner(const BerthdProcess& server, const std::string& project) {
  auto r = onN8n(server, project, "POST", "/rest/owner/setup", "",
                 nlohmann::json{{"email", "owner@example.com"},
                                {"firstName", "Berth"},
                                {"lastName", "Owner"},
                                {"password", "Passw0rdBerth"}}
                     .dump());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["data"].value("isOwner", false), true) << r.body;
  return authCookie(r);
}

// A saved and activated workflow: GET /webhook/berth-e2e answers "berth-e2e-ok". Returns its id.
inline std::string activateWebhookWorkflow(const BerthdProcess& server, const std::string& project,
                                           const std::string& cookie) {
  const nlohmann::json webhook = {{"id", "0b8a3f4e-0000-4000-8000-000000000001"},
                                  {"name", "Webhook"},
                                  {"type", "n8n-nodes-base.webhook"},
                                  {"typeVersion", 2.1},
                                  {"position", {0, 0}},
                                  {"webhookId", "0b8a3f4e-0000-4000-8000-0000000000aa"},
                                  {"parameters",
                                   {{"httpMethod", "GET"},
                                    {"path", kWebhookPath},
                                    {"responseMode", "responseNode"},
                                    {"options", nlohmann::json::object()}}}};
  const nlohmann::json respond = {{"id", "0b8a3f4e-0000-4000-8000-000000000002"},
                                  {"name", "Respond to Webhook"},
                                  {"type", "n8n-nodes-base.respondToWebhook"},
                                  {"typeVersion", 1.5},
                                  {"position", {220, 0}},
                                  {"parameters",
                                   {{"respondWith", "text"},
                                    {"responseBody", kWebhookAnswer},
                                    {"options", nlohmann::json::object()}}}};
  const nlohmann::json workflow = {
      {"name", "berth-e2e"},
      {"nodes", {webhook, respond}},
      {"connections",
       {{"Webhook",
         {{"main", {{{{"node", "Respond to Webhook"}, {"type", "main"}, {"index", 0}}}}}}}}},
      {"settings", {{"executionOrder", "v1"}}}};
  auto saved = onN8n(server, project, "POST", "/rest/workflows", cookie, workflow.dump());
  EXPECT_EQ(saved.status, 200) << saved.body;
  const nlohmann::json data = saved.json().value("data", nlohmann::json::object());
  const std::string id = data.value("id", "");
  auto activated = onN8n(server, project, "POST", "/rest/workflows/" + id + "/activate", cookie,
                         nlohmann::json{{"versionId", data.value("versionId", "")}}.dump());
  EXPECT_EQ(activated.status, 200) << activated.body;
  EXPECT_EQ(activated.json()["data"].value("active", false), true) << activated.body;
  return id;
}

inline HttpResult callWebhook(const BerthdProcess& server, const std::string& project) {
  return onN8n(server, project, "GET", std::string("/webhook/") + kWebhookPath);
}

// Activation takes effect a moment after its 200: the webhook's first good answer.
inline HttpResult firstWebhookAnswer(const BerthdProcess& server, const std::string& project) {
  HttpResult r;
  for (int i = 0; i < 100; ++i) {
    r = callWebhook(server, project);
    if (r.status == 200 && r.body == kWebhookAnswer) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return r;
}

}  // namespace berth::testing::n8n_editor
