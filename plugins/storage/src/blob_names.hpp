// Names in the blob store. A blob is addressed by (project id, space, key): the project owns
// it (deleting the project removes it), the space is the consumer's own area ("files" for the
// public stored files, "releases" for the runtime's archives), the key is free text. The
// backend stores each version of a blob as an object named "<project id>/<32 hex>", never by
// its key, so a key needs no escaping anywhere and a replaced blob never overwrites bytes a
// reader may be sending.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::storage {

inline constexpr size_t kMaxKeyBytes = 1024;
inline constexpr std::string_view kFilesSpace = "files";

// Each returns why the value is refused, or std::nullopt when it is fine.
std::optional<std::string> projectIdRefusal(std::string_view project_id);  // [A-Za-z0-9_-]{1,64}
std::optional<std::string> spaceRefusal(std::string_view space);           // [a-z][a-z0-9_-]{0,31}
std::optional<std::string> keyRefusal(std::string_view key);  // UTF-8, no NUL, 1..1024 bytes

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
