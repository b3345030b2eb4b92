// Releases on several nodes. The node that builds a release packs the folder its build made
// (node_modules and all) into the blob space "builds" (storeBuild), and records the pack's
// SHA-256, size and what it unpacks to on the release row (migration 0006) in the transaction
// that makes it live. A node that must serve a release whose folder it does not have
// (<data_dir>/releases/<project id>/<release id>) makes it from that pack (ReleaseFetch): the
// blob fetched (storage.blobs.v1 get: a local path, downloaded from an S3 store), its digest
// checked against the row, unpacked by release_unpack's rules (held to exactly the entries and
// bytes packed) into a hidden folder renamed into place. Once per node: every request for the
// release meanwhile waits for the one unpack, on the fetch threads, never on a server thread.
#pragma once
#include <berth/common/worker_pool.hpp>
#include <berth/plugin.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "context.hpp"

namespace berth::runtime {

// The blob space of packed release folders (storage.blobs.v1), keyed by release id.
inline constexpr const char* kBuildSpace = "builds";

// After a successful build: packs `dir` (release_pack) into a file of the edge's body folder
// (the only files storage.blobs.v1 put takes) and hands it to the store (put, move), streamed
// both ways. Throws std::runtime_error "the built release could not be packed: <why>" or "the
// built release could not be kept in the blob store: <the store's answer>" (a quota, say).
PackedBuild storeBuild(const Context& context, const std::string& project_id,
                       const std::string& release_id, const std::string& dir);

class ReleaseFetch {
 public:
  using PlatformLog = std::function<void(const std::string& project_id, std::string message)>;
  ReleaseFetch(Context& context, PlatformLog platform_log);
  ~ReleaseFetch() { stop(); }
  ReleaseFetch(const ReleaseFetch&) = delete;
  ReleaseFetch& operator=(const ReleaseFetch&) = delete;

  // Whether the release's folder is on this node (it only ever appears whole).
  bool here(const std::string& project_id, const std::string& release_id) const;

  // Makes the release's folder on this node, on a fetch thread; `done` is called there with
  // nothing when the folder is here, or the refusal (503, with a sentence saying why: an old
  // release without a pack, a pack that does not match its digest, a store that did not
  // answer, berthd stopping). At once, on the caller's thread, when the folder is here already
  // or a refusal of the last few seconds stands. Concurrent calls for one release share one
  // unpack. `done` must not throw.
  using Done = std::function<void(const std::optional<berth::Error>& refusal)>;
  void materialise(const std::string& project_id, const std::string& release_id, Done done);
  // materialise, waiting for it (for callers that may block: runtime.commands.v1).
  // Throws the refusal.
  void ensure(const std::string& project_id, const std::string& release_id);

  // From the releases watch job, at most once a minute: removes release folders of this node
  // whose release another node pruned, failed or removed (with its project); the hidden
  // folders of unpacks in progress are the start-up sweep's.
  void sweep();

  // Takes no more work, lets a running unpack end, and answers every waiting caller 503.
  void stop();

 private:
  void run(const std::string& project_id, const std::string& release_id);
  // The work of one materialise: nothing when the folder is here after it.
  std::optional<berth::Error> make(const std::string& project_id, const std::string& release_id);

  Context& ctx_;
  PlatformLog platform_log_;
  std::mutex mutex_;
  bool stopping_ = false;
  std::map<std::string, std::vector<Done>> flights_;  // release id -> callers waiting
  // A refusal is answered again for a few seconds rather than fetching again for every request.
  std::map<std::string, std::pair<berth::Error, std::chrono::steady_clock::time_point>> refused_;
  std::chrono::steady_clock::time_point last_sweep_{};
  common::WorkerPool pool_;  // last: its threads are joined before the rest goes
};

// For the gateway: true when the release's folder is here (answer the request as before).
// Otherwise false, and the request is held (berth::Exchange) while the fetch threads make the
// folder; then `again` is called with it on that thread (an Error it throws is answered with
// its status), or it is answered 503 with the refusal's text.
using AnswerAgain = std::function<void(const berth::Request&, berth::Responder&)>;
bool releaseFolderReady(Context& context, const ReleaseRecord& release,
                        const berth::Request& request, berth::Responder& responder,
                        AnswerAgain again);

}  // namespace berth::runtime
