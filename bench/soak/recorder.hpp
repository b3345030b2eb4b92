// The soak's tally of answers: per route family, the statuses seen, which of them the workload
// asked for (a deliberate bad request's 4xx), the latencies, and the first few answers that were
// neither (an unprovoked 5xx, no answer, a status or body the route should not give) with the
// request, so that they can be investigated.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace berth::soak {

// One answer the workload did not expect, kept with the request that got it.
struct Surprise {
  double at_s = 0;  // seconds since the soak started
  std::string family, request, answer;
  long status = 0;
};

struct FamilyTally {
  std::map<long, long> ok;          // status -> count, as the route should answer
  std::map<long, long> expected;    // status -> count, errors the workload provoked on purpose
  std::map<long, long> unexpected;  // status -> count (0: no answer), anything else
  long wrong_body = 0;              // a 2xx whose body was not the app's or route's
  std::vector<double> ms;
};

class Recorder {
 public:
  explicit Recorder(double started_at_s) : started_at_s_(started_at_s) {}

  // `provoked`: the request was wrong on purpose, so its expected status is an error the
  // workload caused. `body_ok` false: the status was right but the body was not.
  void record(const std::string& family, const std::string& request, long status,
              const std::string& answer, double ms, bool as_expected, bool provoked,
              bool body_ok = true);

  std::map<std::string, FamilyTally> families() const;
  std::vector<Surprise> surprises() const;
  long surpriseCount() const;
  long total() const;

 private:
  double started_at_s_;
  mutable std::mutex mutex_;
  std::map<std::string, FamilyTally> families_;
  std::vector<Surprise> surprises_;  // the first kMaxKept
  long surprise_count_ = 0;
  long total_ = 0;
};

double nowSeconds();  // a steady clock, in seconds

}  // namespace berth::soak
