// runtime.commands.v1's logic: the contract's request rules and answer round trip, the bound
// on commands at once, and one-off commands through runBuildCommand (outside the sandbox here;
// tests/runtime/api_commands_service_test runs them in it): stdin written while output is
// read, the app's environment without PORT, exit codes, the time limit, the log line.
#include "one_off_command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <berth/services/runtime_commands.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using berth::runtime::commandLogLine;
using berth::runtime::CommandSlots;
using berth::runtime::OneOffCommand;
using berth::runtime::oneOffEnvironment;
using berth::runtime::OneOffOutcome;
using berth::runtime::RunAs;
using berth::runtime::runOneOffCommand;
namespace contract = berth::runtime_commands;
using nlohmann::json;

namespace {

std::string refusal(const json& request) {
  try {
    contract::parseRunRequest(request);
  } catch (const berth::Error& e) {
    return std::to_string(e.status()) + " " + e.message();
  }
  return "accepted";
}

TEST(RuntimeCommandsContract, ARequestIsCheckedWithClearTexts) {
  const json ok = {{"project_id", "p1"}, {"argv", {"ls", "-l"}}};
  EXPECT_EQ(refusal(ok), "accepted");
  auto r = contract::parseRunRequest(ok);
  EXPECT_EQ(r.timeout_seconds, 300);
  EXPECT_FALSE(r.release_id);
  EXPECT_FALSE(r.input);
  // The core adds account_id to an installer's requests: other fields are ignored.
  json more = ok;
  more["account_id"] = "a1";
  EXPECT_EQ(refusal(more), "accepted");

  auto with = [&](const char* field, json value) {
    json j = ok;
    j[field] = std::move(value);
    return refusal(j);
  };
  EXPECT_EQ(refusal({{"argv", {"ls"}}}), "400 project_id is required and must be a string");
  EXPECT_EQ(with("argv", "ls"), "400 argv is required and must be an array of strings");
  EXPECT_EQ(with("argv", json::array({"ls", 3})),
            "400 argv is required and must be an array of strings");
  EXPECT_EQ(with("argv", json::array()), "400 argv must hold 1 to 64 arguments");
  EXPECT_EQ(with("argv", std::vector<std::string>(65, "x")),
            "400 argv must hold 1 to 64 arguments");
  EXPECT_EQ(with("argv", std::vector<std::string>(64, "x")), "accepted");
  EXPECT_EQ(with("argv", {"", "x"}), "400 argv[0], the program, must not be empty");
  EXPECT_EQ(with("argv", {"echo", std::string(4097, 'a')}),
            "400 argv[1] is longer than 4096 bytes");
  EXPECT_EQ(with("argv", {"echo", std::string(4096, 'a')}), "accepted");
  EXPECT_EQ(with("argv", {"echo", std::string("a\0b", 3)}), "400 argv[1] holds a NUL byte");
  for (json bad : {json(0), json(3601), json("60"), json(1.5)})
    EXPECT_EQ(with("timeout_seconds", bad),
              "400 timeout_seconds must be a whole number from 1 to 3600");
  EXPECT_EQ(with("timeout_seconds", 3600), "accepted");
  EXPECT_EQ(with("stdin", 5), "400 stdin must be a string");
  EXPECT_EQ(with("stdin", std::string(1024 * 1024 + 1, 'x')),
            "400 stdin is longer than 1 MB (1048576 bytes)");
  EXPECT_EQ(with("stdin", std::string(1024 * 1024, 'x')), "accepted");
  EXPECT_EQ(with("release_id", 7), "400 release_id must be a string");

  contract::RunRequest full{"p1", {"a", "b"}, "r1", 9, "in"};
  auto back = contract::parseRunRequest(contract::toJson(full));
  EXPECT_EQ(back.argv, full.argv);
  EXPECT_EQ(back.release_id, full.release_id);
  EXPECT_EQ(back.timeout_seconds, 9);
  EXPECT_EQ(back.input, full.input);
  EXPECT_EQ(contract::toJson(full)["stdin"], "in");
}

TEST(RuntimeCommandsContract, AnAnswerRoundTripsWithNulls) {
  contract::Ran exited{0, std::nullopt, false, "hi\n", 12};
  EXPECT_EQ(contract::parseRan(contract::toJson(exited)), exited);
  EXPECT_TRUE(contract::toJson(exited)["signal"].is_null());
  contract::Ran killed{std::nullopt, 9, true, "", 1000};
  EXPECT_EQ(contract::parseRan(contract::toJson(killed)), killed);
  json broken = contract::toJson(exited);
  broken.erase("signal");
  try {
    contract::parseRan(broken);
    FAIL() << "accepted an answer without signal";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_EQ(e.message(),
              "service runtime.commands.v1 (run) answered without \"signal\" (an integer or null)");
  }
}

TEST(CommandSlots, AtMostTheLimitAtOnceAndAGivenBackSlotIsFree) {
  CommandSlots slots(2);
  auto a = slots.take();
  auto b = slots.take();
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(slots.take());
  EXPECT_EQ(slots.taken(), 2);
  a.reset();
  auto c = slots.take();
  EXPECT_TRUE(c);
  EXPECT_FALSE(slots.take());
}

class OneOff : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "berth-oneoff-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::permissions(base_, fs::perms(0755));
    fs::create_directories(base_ / "release");
    fs::create_directories(base_ / "home" / "tmp");
    fs::permissions(base_ / "home", fs::perms(0777));
    std::ofstream(base_ / "release" / "hello.txt") << "from the release\n";
    fs::permissions(base_ / "release" / "hello.txt", fs::perms(0644));
  }
  void TearDown() override { fs::remove_all(base_); }

  OneOffCommand command(std::vector<std::string> argv) const {
    OneOffCommand c;
    c.argv = std::move(argv);
    c.release_dir = (base_ / "release").string();
    c.home = (base_ / "home").string();
    c.environment.database_url = "postgresql://u:pw@127.0.0.1:5432/db";
    c.environment.pg = {{"PGUSER", "u"}, {"PGDATABASE", "db"}};
    c.environment.secrets = {{"API_KEY", "s3cret"}, {"PATH", "/nope"}};
    c.environment.public_url = "http://p.localhost";
    if (::geteuid() == 0) c.run_as = RunAs{200779, 200779};
    c.timeout = std::chrono::seconds(20);
    return c;
  }

  fs::path base_;
};

TEST_F(OneOff, RunsInTheReleaseWithTheAppsEnvironmentWithoutPort) {
  auto c = command({"/bin/sh", "-c", "pwd; cat hello.txt; env | sort"});
  auto env = oneOffEnvironment(c);
  EXPECT_EQ(env.count("PORT"), 0u);
  OneOffOutcome out = runOneOffCommand(c);
  ASSERT_FALSE(out.start_error) << *out.start_error;
  EXPECT_EQ(out.ran.exit_code, 0) << out.ran.output;
  EXPECT_FALSE(out.ran.signal);
  EXPECT_FALSE(out.ran.timed_out);
  const std::string& o = out.ran.output;
  EXPECT_TRUE(o.starts_with(c.release_dir + "\nfrom the release\n")) << o;
  EXPECT_NE(o.find("\nDATABASE_URL=postgresql://u:pw@127.0.0.1:5432/db\n"), std::string::npos);
  EXPECT_NE(o.find("\nPGDATABASE=db\n"), std::string::npos) << o;
  EXPECT_NE(o.find("\nAPI_KEY=s3cret\n"), std::string::npos) << o;
  EXPECT_NE(o.find("\nBERTH_URL=http://p.localhost\n"), std::string::npos) << o;
  EXPECT_NE(o.find("\nHOME=" + c.home + "\n"), std::string::npos) << o;
  EXPECT_NE(o.find("\nTMPDIR=" + c.home + "/tmp\n"), std::string::npos) << o;
  EXPECT_EQ(o.find("PATH=/nope"), std::string::npos) << "a secret overrode PATH";
  EXPECT_EQ(o.find("PORT="), std::string::npos) << o;
  EXPECT_GE(out.ran.duration_ms, 0);
  EXPECT_TRUE(commandLogLine("/bin/sh", out, c.timeout)
                  .starts_with("command /bin/sh exited with code 0 in "));
}

TEST_F(OneOff, StdinIsWrittenWhileOutputIsReadAndTheEndIsKept) {
  // 1 MB through cat: neither side may wait for the other (pipes hold 64 KB).
  std::string input;
  for (int i = 0; input.size() < contract::kMaxStdinBytes - 20; ++i)
    input += "line " + std::to_string(i) + "\n";
  auto c = command({"cat"});
  c.input = input;
  OneOffOutcome out = runOneOffCommand(c);
  ASSERT_EQ(out.ran.exit_code, 0) << out.ran.output.substr(0, 200);
  EXPECT_TRUE(out.ran.output.starts_with("(earlier output cut)\n"));
  EXPECT_TRUE(out.ran.output.ends_with(input.substr(input.size() - 1000)));
  EXPECT_LE(out.ran.output.size(), contract::kOutputBytes + 21);

  c.input = "short input";
  out = runOneOffCommand(c);
  EXPECT_EQ(out.ran.output, "short input");
  c.input.reset();  // nothing: an empty stdin
  out = runOneOffCommand(c);
  EXPECT_EQ(out.ran.exit_code, 0);
  EXPECT_EQ(out.ran.output, "");
}

TEST_F(OneOff, ACommandThatReadsNoStdinEndsNormally) {
  // Its stdin closes unread: the write fails with EPIPE, no SIGPIPE ends this process.
  auto c = command({"/bin/sh", "-c", "exec 0<&-; echo done; exit 3"});
  c.input = std::string(1024 * 1024, 'x');
  OneOffOutcome out = runOneOffCommand(c);
  EXPECT_EQ(out.ran.exit_code, 3);
  EXPECT_EQ(out.ran.output, "done\n");
  EXPECT_EQ(commandLogLine("/bin/sh", out, c.timeout).substr(0, 36),
            "command /bin/sh exited with code 3 i");
}

TEST_F(OneOff, ATimeLimitStopsIt) {
  auto c = command({"/bin/sh", "-c", "echo started; sleep 30"});
  c.timeout = std::chrono::seconds(1);
  OneOffOutcome out = runOneOffCommand(c);
  EXPECT_TRUE(out.ran.timed_out);
  EXPECT_EQ(out.ran.output, "started\n");
  EXPECT_LT(out.ran.duration_ms, 10000);
  EXPECT_GE(out.ran.duration_ms, 1000);
  EXPECT_TRUE(out.ran.signal || out.ran.exit_code);  // how the stop ended it
  EXPECT_EQ(commandLogLine("/bin/sh", out, c.timeout),
            "command /bin/sh took longer than 1 s and was stopped");
}

TEST_F(OneOff, AMissingProgramCannotStartAndABerthdStoppingStopsIt) {
  OneOffOutcome out = runOneOffCommand(command({"no-such-program-here"}));
  ASSERT_TRUE(out.start_error);
  EXPECT_EQ(*out.start_error, "cannot start no-such-program-here: no such program on PATH");
  EXPECT_EQ(commandLogLine("no-such-program-here", out, std::chrono::seconds(1)),
            "command no-such-program-here could not start: cannot start no-such-program-here: "
            "no such program on PATH");

  std::atomic<bool> stopping{true};
  auto c = command({"sleep", "30"});
  c.cancel = &stopping;
  out = runOneOffCommand(c);
  EXPECT_TRUE(out.cancelled);
  EXPECT_LT(out.ran.duration_ms, 10000);
  EXPECT_EQ(commandLogLine("sleep", out, c.timeout),
            "command sleep was stopped because berthd is stopping");
  // A long program name is cut in the line.
  EXPECT_EQ(commandLogLine(std::string(300, 'p'), out, c.timeout).size(),
            std::string("command ").size() + 200 + 3 +
                std::string(" was stopped because berthd is stopping").size());
}

}  // namespace
