// What the soak's clients share: the projects set up before the run, the data API key, the
// locks that keep two clients from racing on what is one at a time by design (a project's
// release builds one at a time; imports run as one script), and the wake counters.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "soak/client.hpp"

namespace berth::soak {

struct World {
  std::string slug;
  // Permanent projects: a static site, a Node app and a PHP app under steady traffic, a Node
  // and a PHP app visited only after they went idle (each visit a wake), and a project for
  // data (rows, SQL, files, secrets, domains); no release.
  std::string static_site, node_hot, php_hot, node_cold, php_cold, data;
  std::string data_key;  // the data project's publishable key (/_data)
  int idle_stop_seconds = 5;

  std::map<std::string, std::unique_ptr<std::mutex>> deploying;  // per project with releases
  std::map<std::string, std::atomic<int>> version;               // the next release's number
  std::mutex importing;
  std::atomic<long> last_note_id{0};  // the newest row id of notes seen
  std::atomic<int> counter{0};        // unique names across clients

  std::atomic<long> wakes{0}, wakes_from_stopped{0};

  static std::string hostOf(const std::string& project) { return project + ".localhost"; }
};

// One client's own state: its random stream and what it made (files, schedules), so that it
// knows what must exist without asking.
struct ClientState {
  int id = 0;
  std::mt19937 random;
  std::set<std::string> files;                                 // paths it stored
  std::vector<std::pair<std::string, std::string>> schedules;  // (project, id) it made
  long n = 0;                                                  // operations done

  int pick(int below) { return std::uniform_int_distribution<int>(0, below - 1)(random); }
};

}  // namespace berth::soak
