// The default backend: objects as files under a local directory (by default <data_dir>/blobs),
// so the edge can send them with sendfile.
//
//   <root>/objects/<group>/<first two hex of id>/<id>   one file per object, mode 0644
//   <root>/tmp/<random>.part                             writes in progress
//
// A write goes to a temporary in the same file system, is fsynced, renamed into place and the
// directory fsynced: a crash leaves either no object or a whole one, plus perhaps a temporary
// that cleanTemporary() removes at the next start. A move of a file on the same file system
// (the edge's spooled request body) is fsynced and renamed, never copied.
#pragma once
#include <sys/types.h>

#include "blob_backend.hpp"

namespace berth::storage {

class LocalBackend final : public BlobBackend {
 public:
  // Creates <root>/objects and <root>/tmp when missing (world-traversable, so that the edge's
  // workers, which may run as another user, can read objects). @throw BackendError.
  explicit LocalBackend(std::string root);

  std::string kind() const override { return "local"; }
  StoredObject putFile(const std::string& object, const std::string& source, bool move) override;
  StoredObject putBytes(const std::string& object, std::string_view bytes) override;
  void setModified(const std::string& object, int64_t unix_seconds) override;
  std::optional<std::string> localPath(const std::string& object) const override;
  std::string read(const std::string& object, uint64_t offset, uint64_t length) const override;
  void remove(const std::string& object) override;
  void removeGroup(const std::string& group) override;
  std::vector<std::string> groups() const override;
  std::vector<ListedObject> list(const std::string& group) const override;
  size_t cleanTemporary(int64_t before) override;

  const std::string& root() const { return root_; }
  std::string temporaryDir() const { return root_ + "/tmp"; }
  std::string objectsDir() const { return root_ + "/objects"; }

 private:
  std::string pathOf(const std::string& object) const;  // @throw BackendError for a bad name
  // Moves `source` into place when it is on this file system and ours to change; false when
  // it must be copied instead.
  bool tryMove(const std::string& source, const std::string& target, StoredObject& stored);
  StoredObject copyIn(const std::string& target, const std::string* source, std::string_view bytes);

  std::string root_;
  dev_t device_ = 0;
};

}  // namespace berth::storage
