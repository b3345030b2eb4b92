#include "blob_service.hpp"

#include <openssl/evp.h>

#include <berth/spooled_body.hpp>

#include <algorithm>

#include "blob_names.hpp"

namespace berth::storage {

namespace {

using berth::Error;
using nlohmann::json;

constexpr int64_t kDefaultListLimit = 1000;
constexpr int64_t kMaxListLimit = 10000;
constexpr int64_t kMaxReadBytes = 4 * 1024 * 1024;

std::string requiredString(const json& request, const char* name) {
  auto it = request.find(name);
  if (it == request.end() || !it->is_string())
    throw Error::badRequest(std::string(name) + " is required and must be a string");
  return it->get<std::string>();
}

std::string optionalString(const json& request, const char* name, std::string fallback = "") {
  auto it = request.find(name);
  if (it == request.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw Error::badRequest(std::string(name) + " must be a string");
  return it->get<std::string>();
}

std::optional<int64_t> optionalCount(const json& request, const char* name) {
  auto it = request.find(name);
  if (it == request.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer() || it->get<int64_t>() < 0)
    throw Error::badRequest(std::string(name) + " must be a non-negative integer");
  return it->get<int64_t>();
}

void refuseIf(const std::optional<std::string>& why) {
  if (why) throw Error::badRequest(*why);
}

// (project_id, space, key) of a request, checked.
struct BlobAddress {
  std::string project_id, space, key;
};

BlobAddress addressOf(const json& request, bool with_key = true) {
  BlobAddress a{requiredString(request, "project_id"), requiredString(request, "space"), ""};
  refuseIf(projectIdRefusal(a.project_id));
  refuseIf(spaceRefusal(a.space));
  if (with_key) {
    a.key = requiredString(request, "key");
    refuseIf(keyRefusal(a.key));
  }
  return a;
}

json blobJson(const BlobRecord& b) {
  return {{"project_id", b.project_id},
          {"space", b.space},
          {"key", b.key},
          {"size", b.size},
          {"content_type", b.content_type},
          {"sha256", b.sha256},
          {"etag", b.etag()},
          {"created_at", b.created_at},
          {"updated_at", b.updated_at}};
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(std::max(written, 0)));
  return out;
}

bool isMediaType(const std::string& type) {
  if (type.empty() || type.size() > 255 || type.find('/') == std::string::npos) return false;
  return std::none_of(type.begin(), type.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F;
  });
}

class BlobService {
 public:
  explicit BlobService(Context& context) : c_(context) {}

  json put(const json& request) const {
    BlobAddress a = addressOf(request);
    std::string from = requiredString(request, "from_file");
    if (from.empty() || from[0] != '/')
      throw Error::badRequest("from_file must be an absolute path");
    // Only a body the edge spooled: never a path a caller named.
    if (!berth::isSpooledBody(c_.services->coreSetting(berth::kEdgeBodyDirSetting).value_or(""),
                              from))
      throw Error::badRequest("from_file must be a request body the edge spooled");
    std::string type = optionalString(request, "content_type");
    if (type.empty()) type = c_.mime.typeOf(a.key);
    if (!isMediaType(type))
      throw Error::badRequest("content_type must be a media type such as text/plain");
    auto move = request.find("move");
    if (move != request.end() && !move->is_boolean() && !move->is_null())
      throw Error::badRequest("move must be a boolean");
    bool take = move != request.end() && move->is_boolean() && move->get<bool>();
    return blobJson(c_.store->putFile(logTo(a), a.project_id, a.space, a.key, from, take, type));
  }

  json get(const json& request) const {
    Range asked = askedRange(request, std::nullopt);
    BlobRecord b = existing(request);
    auto [offset, length] = asked.within(b);
    json answer = blobJson(b);
    if (auto path = c_.store->localPath(b)) answer["path"] = *path;
    answer["offset"] = offset;
    answer["length"] = length;
    return answer;
  }

  json read(const json& request) const {
    Range asked = askedRange(request, kMaxReadBytes);
    BlobRecord b = existing(request);
    auto [offset, length] = asked.within(b);
    json answer = blobJson(b);
    answer["offset"] = offset;
    answer["length"] = length;
    answer["data_base64"] = base64(
        c_.store->read(logTo(b), b, static_cast<uint64_t>(offset), static_cast<uint64_t>(length)));
    return answer;
  }

  json stat(const json& request) const { return blobJson(existing(request)); }

  json remove(const json& request) const {
    BlobAddress a = addressOf(request);
    return {{"deleted", c_.store->remove(logTo(a), a.project_id, a.space, a.key)}};
  }

  json removePrefix(const json& request) const {
    BlobAddress a = addressOf(request, false);
    std::string prefix = requiredString(request, "prefix");
    return {{"deleted", c_.store->removePrefix(logTo(a), a.project_id, a.space, prefix)}};
  }

  json list(const json& request) const {
    BlobAddress a = addressOf(request, false);
    std::string prefix = optionalString(request, "prefix");
    std::string after = optionalString(request, "after");
    int64_t limit = optionalCount(request, "limit").value_or(kDefaultListLimit);
    if (limit < 1 || limit > kMaxListLimit)
      throw Error::badRequest("limit must be between 1 and " + std::to_string(kMaxListLimit));
    json blobs = json::array();
    std::vector<BlobRecord> found = c_.store->list(a.project_id, a.space, prefix, after, limit);
    for (const auto& b : found) blobs.push_back(blobJson(b));
    json next = static_cast<int64_t>(found.size()) == limit ? json(found.back().key) : json();
    return {{"blobs", std::move(blobs)}, {"next", std::move(next)}};
  }

 private:
  // Services have no request; the project id names the project in log lines.
  LogTo logTo(const BlobAddress& a) const { return {c_.logger().withProject(a.project_id), ""}; }
  LogTo logTo(const BlobRecord& b) const { return {c_.logger().withProject(b.project_id), ""}; }

  BlobRecord existing(const json& request) const {
    BlobAddress a = addressOf(request);
    std::optional<BlobRecord> b = c_.store->find(a.project_id, a.space, a.key);
    if (!b) throw Error::notFound("no blob called " + a.key + " in " + a.space);
    return *b;
  }

  // offset (default 0) and length (default: to the end, or `cap`), checked before the blob
  // is looked up and then against its size.
  struct Range {
    int64_t offset = 0;
    std::optional<int64_t> length;

    std::pair<int64_t, int64_t> within(const BlobRecord& b) const {
      if (offset > b.size)
        throw Error(416, "the range starts after the end of the blob (" + std::to_string(b.size) +
                             " bytes)");
      return {offset, std::min(length.value_or(b.size), b.size - offset)};
    }
  };

  static Range askedRange(const json& request, std::optional<int64_t> cap) {
    Range range{optionalCount(request, "offset").value_or(0), optionalCount(request, "length")};
    if (cap && range.length && *range.length > *cap)
      throw Error::badRequest("read returns at most " + std::to_string(*cap) + " bytes at a time");
    if (cap && !range.length) range.length = cap;
    return range;
  }

  Context& c_;
};

}  // namespace

void registerBlobService(berth::Registrar& r, Context& context) {
  auto s = std::make_shared<BlobService>(context);
  r.service("storage.blobs.v1",
            berth::ServiceMethods{
                {"put", [s](const json& q) { return s->put(q); }},
                {"get", [s](const json& q) { return s->get(q); }},
                {"read", [s](const json& q) { return s->read(q); }},
                {"stat", [s](const json& q) { return s->stat(q); }},
                {"delete", [s](const json& q) { return s->remove(q); }},
                {"delete_prefix", [s](const json& q) { return s->removePrefix(q); }},
                {"list", [s](const json& q) { return s->list(q); }},
            });
}

void registerStatsService(berth::Registrar& r, Context& context) {
  Context* c = &context;
  r.service("storage.stats.v1",
            berth::ServiceMethods{
                {"projects",
                 [c](const json& request) {
                   auto ids = request.find("ids");
                   if (ids == request.end() || !ids->is_array())
                     throw Error::badRequest("ids is required and must be an array of strings");
                   std::vector<std::string> wanted;
                   for (const auto& id : *ids) {
                     if (!id.is_string())
                       throw Error::badRequest("ids is required and must be an array of strings");
                     wanted.push_back(id.get<std::string>());
                   }
                   std::map<std::string, FileUsage> usage = c->store->fileUsage(wanted);
                   json answer = json::object();
                   for (const auto& id : wanted) {
                     FileUsage u = usage.count(id) > 0 ? usage[id] : FileUsage{};
                     answer[id] = {{"files_count", u.count}, {"files_bytes", u.bytes}};
                   }
                   return answer;
                 }},
            });
}

}  // namespace berth::storage
