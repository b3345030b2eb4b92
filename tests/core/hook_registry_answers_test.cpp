// What HookRegistry::fire hands back: the answers of the hooks that accepted with one, as one
// JSON array in load order (Services::fireForAnswers reads it); a refusal stops the event and
// hands back only the refusal; hooks that answer nothing add nothing.
#include <gtest/gtest.h>

#include <string>

#include "plugin/buffer.hpp"
#include "plugin/hook_registry.hpp"

namespace {

using berth::core::HookRegistry;

// A subscriber whose `user` is the text it writes to its answer ("" for none); "!" refuses.
int32_t answerWith(void* user, berth_str, berth_str, berth_buffer* out) {
  const std::string& text = *static_cast<const std::string*>(user);
  if (text == "!") {
    out->bytes += R"({"status":409,"error":"not now"})";
    return BERTH_ERR;
  }
  out->bytes += text;
  return BERTH_OK;
}

struct Fired {
  int32_t status;
  std::string out;
};

Fired fire(const HookRegistry& hooks, const std::string& event) {
  berth_buffer out;
  int32_t status = hooks.fire(event, R"({"ids":["p1"]})", &out);
  return {status, out.bytes};
}

TEST(HookRegistryAnswers, TheAnswersGivenComeBackAsOneArrayInOrder) {
  const std::string first = R"({"p1":{"files_count":2}})", none,
                    second = R"({"p1":{"state":"running"}})";
  HookRegistry hooks;
  hooks.add("projects.view.v1", "storage", &answerWith, const_cast<std::string*>(&first));
  hooks.add("projects.view.v1", "quiet", &answerWith, const_cast<std::string*>(&none));
  hooks.add("projects.view.v1", "runtime", &answerWith, const_cast<std::string*>(&second));
  Fired f = fire(hooks, "projects.view.v1");
  EXPECT_EQ(f.status, BERTH_OK);
  EXPECT_EQ(f.out, "[" + first + "," + second + "]");
}

TEST(HookRegistryAnswers, NoAnswerAndNoSubscriberHandBackNothing) {
  const std::string none;
  HookRegistry hooks;
  hooks.add("project.created", "quiet", &answerWith, const_cast<std::string*>(&none));
  EXPECT_EQ(fire(hooks, "project.created").out, "");
  EXPECT_EQ(fire(hooks, "project.created").status, BERTH_OK);
  EXPECT_EQ(fire(hooks, "nobody.listens").out, "");
  EXPECT_EQ(fire(hooks, "nobody.listens").status, BERTH_OK);
}

TEST(HookRegistryAnswers, ARefusalHandsBackOnlyTheRefusal) {
  const std::string first = R"({"p1":{}})", refuse = "!";
  HookRegistry hooks;
  hooks.add("project.deleting", "storage", &answerWith, const_cast<std::string*>(&first));
  hooks.add("project.deleting", "keeper", &answerWith, const_cast<std::string*>(&refuse));
  Fired f = fire(hooks, "project.deleting");
  EXPECT_EQ(f.status, BERTH_ERR);
  EXPECT_EQ(f.out, R"({"status":409,"error":"not now"})");
}

}  // namespace
