// Where blob bytes live. The plugin keeps the metadata (key, size, type, sha256, times) in its
// tables and hands the backend opaque object names ("<group>/<id>", see blob_names.hpp);
// a backend stores, finds and removes objects and nothing else. Objects are written once and
// never changed: replacing a blob writes a new object and removes the old one afterwards.
//
// The local directory backend (local_backend.hpp) is the default; s3_backend.hpp keeps objects
// in an S3-compatible bucket (storage.backend: s3).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace berth::storage {

// The backend could not do what was asked (disk full, permission, a store that did not
// answer). The message is for the log: it may name paths.
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a write stored.
struct StoredObject {
  uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex characters
};

// An object found by listing (for the sweep of objects no row refers to).
struct ListedObject {
  std::string object;
  int64_t modified = 0;  // Unix seconds
};

class BlobBackend {
 public:
  virtual ~BlobBackend() = default;

  // "local", "s3", ... for logs.
  virtual std::string kind() const = 0;

  // Stores the bytes of the file at `source` as `object`, streamed (never whole in memory).
  // Atomic and durable: when it returns the object is complete on stable storage; before,
  // it does not exist, and a crash leaves at most a temporary that cleanTemporary() removes.
  // With `move`, the source file may be taken over (renamed) instead of copied; the caller
  // must not use it afterwards. The object's modification time is "now".
  virtual StoredObject putFile(const std::string& object, const std::string& source, bool move) = 0;
  // The same for bytes in memory (small bodies).
  virtual StoredObject putBytes(const std::string& object, std::string_view bytes) = 0;

  // Sets the object's modification time, which the edge sends as Last-Modified and builds
  // the ETag from. Called before the object is published.
  virtual void setModified(const std::string& object, int64_t unix_seconds) = 0;

  // The absolute path of the object's file when the backend keeps objects on this machine
  // (the edge sends it with sendfile); std::nullopt for a remote store.
  virtual std::optional<std::string> localPath(const std::string& object) const = 0;
  // A file on this machine with the object's bytes, dated `modified`, for the edge to send and
  // for `get`: the object itself for the local backend; a verified local copy for a remote
  // store (s3_backend.hpp), fetched when missing. @throw BackendError when it cannot be had.
  virtual std::optional<std::string> localCopy(const std::string& object,
                                               const StoredObject& /*expected*/,
                                               int64_t /*modified*/) const {
    return localPath(object);
  }
  // Where localCopy() puts the object's bytes on this machine, whether or not they are there
  // now; never fetches (the edge tree compares its links with it). @throw BackendError for a
  // name that is not an object's.
  virtual std::optional<std::string> copyPlace(const std::string& object) const {
    return localPath(object);
  }

  // Up to `length` bytes from `offset` (fewer at the end).
  virtual std::string read(const std::string& object, uint64_t offset, uint64_t length) const = 0;

  // Removes an object; an absent one counts as removed. @throw BackendError when the store
  // did not confirm.
  virtual void remove(const std::string& object) = 0;

  // Removes every object of a group (a project) and confirms none is left.
  // @throw BackendError when the store did not confirm.
  virtual void removeGroup(const std::string& group) = 0;

  // Groups that have objects, and the objects of one group (for sweeps).
  virtual std::vector<std::string> groups() const = 0;
  virtual std::vector<ListedObject> list(const std::string& group) const = 0;

  // Removes temporaries of writes that never finished (a crash) last modified before
  // `before` (Unix seconds); returns how many.
  virtual size_t cleanTemporary(int64_t before) = 0;
};

}  // namespace berth::storage
