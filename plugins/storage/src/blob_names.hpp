// Names in the blob store. A blob is addressed by (project id, space, key): the project owns
// it (deleting the project removes it), the space is the consumer's own area ("files" for the
// public stored files, "releases" for the runtime's archives), the key is free text. The
// backend stores each version of a blob as an object named "<project id>/<32 hex>", never by
// its key, so a key needs no escaping anywhere and a replaced blob never overwrites bytes a
// reader may be sending.
#pragma once
#include <berth/services/storage_blobs.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace berth::storage {

// The address rules are storage.blobs.v1's (<berth/services/storage_blobs.hpp>), so the service,
// the store and the consumers refuse with one text. Each returns why the value is refused, or
// std::nullopt when it is fine.
using berth::storage_blobs::keyRefusal;        // UTF-8, no NUL, 1..1024 bytes
using berth::storage_blobs::kFilesSpace;       // "files": the public stored files
using berth::storage_blobs::kMaxKeyBytes;      // 1024
using berth::storage_blobs::projectIdRefusal;  // [A-Za-z0-9_-]{1,64}
using berth::storage_blobs::spaceRefusal;      // [a-z][a-z0-9_-]{0,31}

// A new object name for a project: "<project id>/<32 random hex characters>".
std::string newObjectName(std::string_view project_id);

// Splits "<group>/<id>" and checks both parts; std::nullopt for anything else, so a name that
// did not come from newObjectName can never reach the file system.
struct ObjectName {
  std::string group;
  std::string id;
};
std::optional<ObjectName> parseObjectName(std::string_view object);

// Random lower-case hex from the system's CSPRNG. @throw std::runtime_error when none.
std::string randomHex(size_t bytes);

}  // namespace berth::storage
