// Samples, every few seconds, what a leak would make grow: berthd's resident memory, open file
// descriptors and threads, the client connections of its PostgreSQL cluster, the edge's nginx
// workers (and their memory), and the app processes berthd runs (node, php-cgi, builds).
#pragma once
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace berth::soak {

struct Sample {
  double t = 0;  // seconds since the soak started
  double rss_mb = 0, fds = 0, threads = 0, pg_connections = 0, edge_workers = 0, edge_rss_mb = 0,
         apps = 0, app_processes = 0;
};

// The sampled quantities by name, in print order, and how to read one from a Sample.
struct Quantity {
  const char* name;
  double Sample::*field;
  bool gated;  // part of the flatness goal (memory, file descriptors, connections)
};
const std::vector<Quantity>& quantities();

// Reads the process tree under berthd and the cluster's pg_stat_activity.
Sample takeSample(pid_t berthd, const std::string& cluster_url, double t);

// A thread taking a Sample every `every_s` seconds until stop().
class Sampler {
 public:
  Sampler(pid_t berthd, std::string cluster_url, double started_at_s, double every_s);
  ~Sampler();
  void stop();
  std::vector<Sample> samples() const;

 private:
  void run();

  pid_t berthd_;
  std::string cluster_url_;
  double started_at_s_, every_s_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<Sample> samples_;
  std::thread thread_;
};

// berthd's apps now, one line per project folder (releases/<project>/<release>) that has more
// than one app process of its own: a replaced release's app left running.
std::vector<std::string> duplicateApps(pid_t berthd);

// Who holds the cluster's connections at the end (database, user, state: count), for a
// report that shows where a growth came from.
std::vector<std::string> connectionBreakdown(const std::string& cluster_url);

}  // namespace berth::soak
