// SPDX-License-Identifier: MIT
/** @file
 *  Background jobs: declared with Registrar::job(name, period, fn), run by the core.
 *
 *  The core owns the threads: it runs each job every period (a run never overlaps itself),
 *  asks running jobs to stop at shutdown and joins them before the plugin's stop(). A long
 *  run should check stopRequested() between steps and return early when it is set. What a run
 *  throws is caught and logged; the next run happens as planned.
 *
 *  THREADING: runs on the core's job pool, concurrently with handlers, hooks and services.
 */
#ifndef BERTH_JOBS_HPP
#define BERTH_JOBS_HPP

#include <berth/db.hpp>
#include <berth/host_ref.hpp>
#include <berth/logger.hpp>

#include <string>
#include <utility>

namespace berth {

/** What one run of a job may use.
 *  LIFETIME: valid during the run only; do not keep it. */
class JobContext {
 public:
  JobContext(HostRef host, berth_job_ctx* context, std::string name)
      : host_(host), context_(context), name_(std::move(name)) {}

  /** True once the core is shutting down: finish quickly. */
  bool stopRequested() const { return host_.api->job_stop_requested(context_) != 0; }

  /** The job's name as declared (the core's id for it is <plugin>.<name>). */
  const std::string& name() const noexcept { return name_; }

  Logger logger() const { return Logger(host_); }
  Db db() const { return Db(host_); }

  /** The ABI handle, for what the C++ layer does not wrap. */
  berth_job_ctx* raw() const noexcept { return context_; }

 private:
  HostRef host_;
  berth_job_ctx* context_;
  std::string name_;
};

}  // namespace berth

#endif  // BERTH_JOBS_HPP
