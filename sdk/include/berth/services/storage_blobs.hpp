// SPDX-License-Identifier: MIT
/** @file
 *  storage.blobs.v1: the blob store the storage plugin offers every other plugin. Header-only,
 *  no ABI: the requests and answers as types, their JSON written and read once (the storage
 *  plugin reads requests and writes answers with it, consumers the other way round), the rules
 *  of a blob's address, and a typed client:
 *
 *      berth::StorageBlobs blobs(services());
 *      auto slice = blobs.get({project_id, "releases", release_id});  // slice.path: the bytes
 *
 *  A blob is addressed by project_id (deleting the project removes it), space (the consumer's
 *  own area: "files" holds the public stored files, any other is private to its users) and key
 *  (free text; keys never become file names). Methods (request -> answer):
 *  - `put` {project_id, space, key, from_file, content_type?, move?} -> Blob. from_file must be
 *    a request body the edge spooled; with move the store takes the file over.
 *  - `get` {project_id, space, key, offset?, length?} -> BlobSlice: the record, the local
 *    `path` of its bytes (absent for a remote backend), and the range, clamped to the blob.
 *  - `read` (the same request) -> BlobBytes: up to kMaxReadBytes of the range, as base64.
 *  - `stat` {project_id, space, key} -> Blob.
 *  - `delete` {project_id, space, key} -> {deleted: bool} (false: there was none).
 *  - `delete_prefix` {project_id, space, prefix} -> {deleted: n} ("" empties the space).
 *  - `list` {project_id, space, prefix?, after?, limit?} -> BlobList, keys in byte order after
 *    `after`; `next` is the last key when the page is full, else null.
 *
 *  Invariants: every Blob field is always there; 404 is "no blob called <key> in <space>"
 *  (get, read, stat); a refused request is 400 with the texts of the parsers below (checked in
 *  their order), 403 a quota (put), 416 a range past the end, 502 the backend failed, 503 a
 *  key written by others at the same moment. The storage plugin's README has every text.
 */
#ifndef BERTH_SERVICES_STORAGE_BLOBS_HPP
#define BERTH_SERVICES_STORAGE_BLOBS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>
#include <berth/util/json_text.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {
namespace storage_blobs {

inline constexpr std::string_view kService = "storage.blobs.v1";

inline constexpr std::string_view kPut = "put";
inline constexpr std::string_view kGet = "get";
inline constexpr std::string_view kRead = "read";
inline constexpr std::string_view kStat = "stat";
inline constexpr std::string_view kDelete = "delete";
inline constexpr std::string_view kDeletePrefix = "delete_prefix";
inline constexpr std::string_view kList = "list";

/** The space of the public stored files (listed, served at /_files/, counted). */
inline constexpr std::string_view kFilesSpace = "files";
inline constexpr size_t kMaxKeyBytes = 1024;
inline constexpr int64_t kDefaultListLimit = 1000;
inline constexpr int64_t kMaxListLimit = 10000;
inline constexpr int64_t kMaxReadBytes = 4 * 1024 * 1024;

// ---- the address rules: each says why a value is refused, or nothing --------------------------

/** [A-Za-z0-9_-]{1,64} */
inline std::optional<std::string> projectIdRefusal(std::string_view project_id) {
  if (project_id.empty() || project_id.size() > 64) return "project_id must be 1 to 64 characters";
  for (char c : project_id)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_'))
      return "project_id may contain only letters, digits, '-' and '_'";
  return std::nullopt;
}

/** [a-z][a-z0-9_-]{0,31} */
inline std::optional<std::string> spaceRefusal(std::string_view space) {
  bool ok = !space.empty() && space.size() <= 32 && space[0] >= 'a' && space[0] <= 'z';
  for (char c : space)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
  if (!ok) return "space must be 1 to 32 of [a-z0-9_-], starting with a letter";
  return std::nullopt;
}

/** 1 to kMaxKeyBytes bytes of UTF-8 without NUL. */
inline std::optional<std::string> keyRefusal(std::string_view key) {
  if (key.empty()) return "key cannot be empty";
  if (key.size() > kMaxKeyBytes)
    return "key can be at most " + std::to_string(kMaxKeyBytes) + " bytes";
  if (key.find('\0') != std::string_view::npos) return "key cannot contain a NUL byte";
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  for (size_t i = 0; i < key.size();) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t length = berth::detail::utf8SequenceLength(p + i, key.size() - i);
    if (length == 0) return "key must be UTF-8 text";
    i += length;
  }
  return std::nullopt;
}

// ---- answers ------------------------------------------------------------------------------

/** A blob record. */
struct Blob {
  std::string project_id;
  std::string space;
  std::string key;
  int64_t size = 0;  ///< bytes
  std::string content_type;
  std::string sha256;      ///< hex
  std::string etag;        ///< what the edge sends: "<hex updated_at>-<hex size>"
  int64_t created_at = 0;  ///< Unix seconds
  int64_t updated_at = 0;

  bool operator==(const Blob&) const = default;
};

inline nlohmann::json toJson(const Blob& b) {
  return {{"project_id", b.project_id},
          {"space", b.space},
          {"key", b.key},
          {"size", b.size},
          {"content_type", b.content_type},
          {"sha256", b.sha256},
          {"etag", b.etag},
          {"created_at", b.created_at},
          {"updated_at", b.updated_at}};
}

namespace detail {
inline Blob blobFrom(const service_json::Answer& a) {
  Blob b;
  b.project_id = a.text("project_id");
  b.space = a.text("space");
  b.key = a.text("key");
  b.size = a.integer("size");
  b.content_type = a.text("content_type");
  b.sha256 = a.text("sha256");
  b.etag = a.text("etag");
  b.created_at = a.integer("created_at");
  b.updated_at = a.integer("updated_at");
  return b;
}
}  // namespace detail

/** The answer of put and stat. */
inline Blob parseBlob(const nlohmann::json& answer, std::string_view method = kStat) {
  return detail::blobFrom(service_json::Answer(answer, kService, method));
}

/** The answer of get: where the bytes are on this node, and the range asked. */
struct BlobSlice {
  Blob blob;
  std::optional<std::string> path;  ///< absolute; never changes (a replace writes a new file)
  int64_t offset = 0;
  int64_t length = 0;  ///< clamped to what the blob has after offset

  bool operator==(const BlobSlice&) const = default;
};

inline nlohmann::json toJson(const BlobSlice& s) {
  nlohmann::json out = toJson(s.blob);
  if (s.path) out["path"] = *s.path;
  out["offset"] = s.offset;
  out["length"] = s.length;
  return out;
}

inline BlobSlice parseBlobSlice(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kGet);
  BlobSlice s;
  s.blob = detail::blobFrom(a);
  if (answer.contains("path")) s.path = a.text("path");
  s.offset = a.integer("offset");
  s.length = a.integer("length");
  return s;
}

/** The answer of read. */
struct BlobBytes {
  Blob blob;
  int64_t offset = 0;
  int64_t length = 0;
  std::string data_base64;

  bool operator==(const BlobBytes&) const = default;
};

inline nlohmann::json toJson(const BlobBytes& r) {
  nlohmann::json out = toJson(r.blob);
  out["offset"] = r.offset;
  out["length"] = r.length;
  out["data_base64"] = r.data_base64;
  return out;
}

inline BlobBytes parseBlobBytes(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kRead);
  return {detail::blobFrom(a), a.integer("offset"), a.integer("length"), a.text("data_base64")};
}

/** The answer of list. */
struct BlobList {
  std::vector<Blob> blobs;
  std::optional<std::string> next;  ///< pass as `after` for the next page; none: the last page

  bool operator==(const BlobList&) const = default;
};

inline nlohmann::json toJson(const BlobList& l) {
  nlohmann::json blobs = nlohmann::json::array();
  for (const auto& b : l.blobs) blobs.push_back(toJson(b));
  return {{"blobs", std::move(blobs)},
          {"next", l.next ? nlohmann::json(*l.next) : nlohmann::json()}};
}

inline BlobList parseBlobList(const nlohmann::json& answer) {
  service_json::Answer a(answer, kService, kList);
  BlobList l;
  const nlohmann::json& blobs = a.array("blobs");
  for (size_t i = 0; i < blobs.size(); ++i)
    l.blobs.push_back(detail::blobFrom(
        service_json::Answer(blobs[i], kService, kList, "blobs." + std::to_string(i))));
  l.next = a.textOrNull("next");
  return l;
}

/** delete: {deleted: true|false}. */
inline nlohmann::json deletedJson(bool deleted) {
  return {{"deleted", deleted}};
}
inline bool parseDeleted(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kDelete).flag("deleted");
}

/** delete_prefix: {deleted: how many}. */
inline nlohmann::json deletedCountJson(int64_t deleted) {
  return {{"deleted", deleted}};
}
inline int64_t parseDeletedCount(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kDeletePrefix).integer("deleted");
}

// ---- requests -----------------------------------------------------------------------------

/** (project_id, space, key); the key is empty where a method takes none. */
struct BlobAddress {
  std::string project_id;
  std::string space;
  std::string key;

  bool operator==(const BlobAddress&) const = default;
};

inline void addTo(nlohmann::json& request, const BlobAddress& a, bool with_key = true) {
  request["project_id"] = a.project_id;
  request["space"] = a.space;
  if (with_key) request["key"] = a.key;
}

/** project_id, space (each present, then each by its rule), then key when `with_key`.
 *  @throw Error 400 "project_id is required and must be a string", or the rule's text. */
inline BlobAddress parseAddress(const nlohmann::json& request, bool with_key = true) {
  auto refuse = [](const std::optional<std::string>& why) {
    if (why) throw Error::badRequest(*why);
  };
  BlobAddress a{service_json::requiredText(request, "project_id"),
                service_json::requiredText(request, "space"), ""};
  refuse(projectIdRefusal(a.project_id));
  refuse(spaceRefusal(a.space));
  if (with_key) {
    a.key = service_json::requiredText(request, "key");
    refuse(keyRefusal(a.key));
  }
  return a;
}

struct PutRequest {
  BlobAddress blob;
  std::string from_file;     ///< absolute; a body the edge spooled (berth::isSpooledBody)
  std::string content_type;  ///< empty: from the key's extension
  bool move = false;         ///< take the file over (the caller must not use it afterwards)
};

inline nlohmann::json toJson(const PutRequest& r) {
  nlohmann::json request = nlohmann::json::object();
  addTo(request, r.blob);
  request["from_file"] = r.from_file;
  if (!r.content_type.empty()) request["content_type"] = r.content_type;
  if (r.move) request["move"] = true;
  return request;
}

/** The address, from_file (present, absolute), content_type, move. Whether from_file is a
 *  spooled body, and whether the content type is a media type, is the store's to check. */
inline PutRequest parsePutRequest(const nlohmann::json& request) {
  PutRequest r;
  r.blob = parseAddress(request);
  r.from_file = service_json::requiredText(request, "from_file");
  if (r.from_file.empty() || r.from_file[0] != '/')
    throw Error::badRequest("from_file must be an absolute path");
  r.content_type = service_json::optionalText(request, "content_type").value_or("");
  r.move = service_json::optionalFlag(request, "move").value_or(false);
  return r;
}

/** get and read: a blob and a byte range of it. */
struct RangeRequest {
  BlobAddress blob;
  int64_t offset = 0;
  std::optional<int64_t> length;  ///< none: to the end (read: at most kMaxReadBytes)
};

inline nlohmann::json toJson(const RangeRequest& r) {
  nlohmann::json request = nlohmann::json::object();
  addTo(request, r.blob);
  if (r.offset != 0) request["offset"] = r.offset;
  if (r.length) request["length"] = *r.length;
  return request;
}

/** offset and length first (read: length at most kMaxReadBytes, kMaxReadBytes when absent),
 *  then the address. @throw Error 400 "offset must be a non-negative integer" (or length),
 *  "read returns at most 4194304 bytes at a time", or the address's refusal. */
inline RangeRequest parseRangeRequest(const nlohmann::json& request, bool capped_read) {
  RangeRequest r;
  r.offset = service_json::optionalCount(request, "offset").value_or(0);
  r.length = service_json::optionalCount(request, "length");
  if (capped_read) {
    if (r.length && *r.length > kMaxReadBytes)
      throw Error::badRequest("read returns at most " + std::to_string(kMaxReadBytes) +
                              " bytes at a time");
    if (!r.length) r.length = kMaxReadBytes;
  }
  r.blob = parseAddress(request);
  return r;
}

/** delete_prefix: every key of the space starting with prefix ("" for all). */
struct PrefixRequest {
  std::string project_id;
  std::string space;
  std::string prefix;
};

inline nlohmann::json toJson(const PrefixRequest& r) {
  return {{"project_id", r.project_id}, {"space", r.space}, {"prefix", r.prefix}};
}

inline PrefixRequest parsePrefixRequest(const nlohmann::json& request) {
  BlobAddress a = parseAddress(request, false);
  return {a.project_id, a.space, service_json::requiredText(request, "prefix")};
}

struct ListRequest {
  std::string project_id;
  std::string space;
  std::string prefix;                 ///< only keys starting with it
  std::string after;                  ///< only keys greater than it (the `next` of the page before)
  int64_t limit = kDefaultListLimit;  ///< 1 to kMaxListLimit
};

inline nlohmann::json toJson(const ListRequest& r) {
  nlohmann::json request = {{"project_id", r.project_id}, {"space", r.space}, {"limit", r.limit}};
  if (!r.prefix.empty()) request["prefix"] = r.prefix;
  if (!r.after.empty()) request["after"] = r.after;
  return request;
}

/** @throw Error 400 for the address, "<prefix|after> must be a string",
 *  "limit must be a non-negative integer", "limit must be between 1 and 10000". */
inline ListRequest parseListRequest(const nlohmann::json& request) {
  BlobAddress a = parseAddress(request, false);
  ListRequest r{a.project_id, a.space, service_json::optionalText(request, "prefix").value_or(""),
                service_json::optionalText(request, "after").value_or(""), kDefaultListLimit};
  r.limit = service_json::optionalCount(request, "limit").value_or(kDefaultListLimit);
  if (r.limit < 1 || r.limit > kMaxListLimit)
    throw Error::badRequest("limit must be between 1 and " + std::to_string(kMaxListLimit));
  return r;
}

}  // namespace storage_blobs

/** The typed client of storage.blobs.v1. Errors pass through as the store answered them (a
 *  404, a 403 quota...); a missing storage plugin is Error 500 "service storage.blobs.v1 is
 *  not available"; an answer that breaks the contract is Error 500 naming the field. */
class StorageBlobs {
 public:
  using Blob = storage_blobs::Blob;
  using BlobAddress = storage_blobs::BlobAddress;

  explicit StorageBlobs(const Services& services) : services_(&services) {}

  Blob put(const storage_blobs::PutRequest& request) const {
    using namespace storage_blobs;
    return parseBlob(ask(kPut, toJson(request)), kPut);
  }

  /** @throw Error 404 "no blob called <key> in <space>", 416 for an offset past the end. */
  storage_blobs::BlobSlice get(const BlobAddress& blob, int64_t offset = 0,
                               std::optional<int64_t> length = std::nullopt) const {
    using namespace storage_blobs;
    return parseBlobSlice(ask(kGet, toJson(RangeRequest{blob, offset, length})));
  }

  storage_blobs::BlobBytes read(const BlobAddress& blob, int64_t offset = 0,
                                std::optional<int64_t> length = std::nullopt) const {
    using namespace storage_blobs;
    return parseBlobBytes(ask(kRead, toJson(RangeRequest{blob, offset, length})));
  }

  Blob stat(const BlobAddress& blob) const {
    using namespace storage_blobs;
    nlohmann::json request = nlohmann::json::object();
    addTo(request, blob);
    return parseBlob(ask(kStat, request), kStat);
  }

  /** @return false when there was no such blob. */
  bool remove(const BlobAddress& blob) const {
    using namespace storage_blobs;
    nlohmann::json request = nlohmann::json::object();
    addTo(request, blob);
    return parseDeleted(ask(kDelete, request));
  }

  /** @return how many blobs went. */
  int64_t removePrefix(const storage_blobs::PrefixRequest& request) const {
    using namespace storage_blobs;
    return parseDeletedCount(ask(kDeletePrefix, toJson(request)));
  }

  storage_blobs::BlobList list(const storage_blobs::ListRequest& request) const {
    using namespace storage_blobs;
    return parseBlobList(ask(kList, toJson(request)));
  }

 private:
  nlohmann::json ask(std::string_view method, const nlohmann::json& request) const {
    return services_->call(storage_blobs::kService, method, request);
  }

  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_STORAGE_BLOBS_HPP
