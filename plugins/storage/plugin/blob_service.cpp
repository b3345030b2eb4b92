#include "blob_service.hpp"

#include <openssl/evp.h>

#include <berth/services/projects_view.hpp>
#include <berth/services/storage_blobs.hpp>
#include <berth/services/storage_stats.hpp>
#include <berth/util/spooled_body.hpp>

#include <algorithm>

#include "blob_names.hpp"

namespace berth::storage {

namespace {

using berth::Error;
using nlohmann::json;

namespace contract = berth::storage_blobs;

contract::Blob blobOf(const BlobRecord& b) {
  return {b.project_id, b.space,  b.key,        b.size,      b.content_type,
          b.sha256,     b.etag(), b.created_at, b.updated_at};
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
    contract::PutRequest put = contract::parsePutRequest(request);
    const contract::BlobAddress& a = put.blob;
    // Only a body the edge spooled: never a path a caller named.
    if (!berth::isSpooledBody(c_.services->coreSetting(berth::kEdgeBodyDirSetting).value_or(""),
                              put.from_file))
      throw Error::badRequest("from_file must be a request body the edge spooled");
    std::string type = put.content_type.empty() ? c_.mime.typeOf(a.key) : put.content_type;
    if (!isMediaType(type))
      throw Error::badRequest("content_type must be a media type such as text/plain");
    return toJson(blobOf(
        c_.store->putFile(logTo(a), a.project_id, a.space, a.key, put.from_file, put.move, type)));
  }

  json get(const json& request) const {
    contract::RangeRequest asked = contract::parseRangeRequest(request, /*capped_read=*/false);
    BlobRecord b = existing(asked.blob);
    auto [offset, length] = within(asked, b);
    return toJson(contract::BlobSlice{blobOf(b), c_.store->localPath(b), offset, length});
  }

  json read(const json& request) const {
    contract::RangeRequest asked = contract::parseRangeRequest(request, /*capped_read=*/true);
    BlobRecord b = existing(asked.blob);
    auto [offset, length] = within(asked, b);
    return toJson(
        contract::BlobBytes{blobOf(b), offset, length,
                            base64(c_.store->read(logTo(b), b, static_cast<uint64_t>(offset),
                                                  static_cast<uint64_t>(length)))});
  }

  json stat(const json& request) const {
    return toJson(blobOf(existing(contract::parseAddress(request))));
  }

  json remove(const json& request) const {
    contract::BlobAddress a = contract::parseAddress(request);
    return contract::deletedJson(c_.store->remove(logTo(a), a.project_id, a.space, a.key));
  }

  json removePrefix(const json& request) const {
    contract::PrefixRequest r = contract::parsePrefixRequest(request);
    return contract::deletedCountJson(c_.store->removePrefix(
        logTo(contract::BlobAddress{r.project_id, r.space, ""}), r.project_id, r.space, r.prefix));
  }

  json list(const json& request) const {
    contract::ListRequest r = contract::parseListRequest(request);
    contract::BlobList page;
    for (const auto& b : c_.store->list(r.project_id, r.space, r.prefix, r.after, r.limit))
      page.blobs.push_back(blobOf(b));
    if (static_cast<int64_t>(page.blobs.size()) == r.limit) page.next = page.blobs.back().key;
    return toJson(page);
  }

 private:
  // Services have no request; the project id names the project in log lines.
  LogTo logTo(const contract::BlobAddress& a) const {
    return {c_.logger().withProject(a.project_id), ""};
  }
  LogTo logTo(const BlobRecord& b) const { return {c_.logger().withProject(b.project_id), ""}; }

  BlobRecord existing(const contract::BlobAddress& a) const {
    std::optional<BlobRecord> b = c_.store->find(a.project_id, a.space, a.key);
    if (!b) throw Error::notFound("no blob called " + a.key + " in " + a.space);
    return *b;
  }

  // The range asked, checked against the blob's size (offset and length were checked before
  // the blob was looked up).
  static std::pair<int64_t, int64_t> within(const contract::RangeRequest& asked,
                                            const BlobRecord& b) {
    if (asked.offset > b.size)
      throw Error(
          416, "the range starts after the end of the blob (" + std::to_string(b.size) + " bytes)");
    return {asked.offset, std::min(asked.length.value_or(b.size), b.size - asked.offset)};
  }

  Context& c_;
};

}  // namespace

void registerBlobService(berth::Registrar& r, Context& context) {
  auto s = std::make_shared<BlobService>(context);
  r.service(
      std::string(contract::kService),
      berth::ServiceMethods{
          {std::string(contract::kPut), [s](const json& q) { return s->put(q); }},
          {std::string(contract::kGet), [s](const json& q) { return s->get(q); }},
          {std::string(contract::kRead), [s](const json& q) { return s->read(q); }},
          {std::string(contract::kStat), [s](const json& q) { return s->stat(q); }},
          {std::string(contract::kDelete), [s](const json& q) { return s->remove(q); }},
          {std::string(contract::kDeletePrefix), [s](const json& q) { return s->removePrefix(q); }},
          {std::string(contract::kList), [s](const json& q) { return s->list(q); }},
      });
}

void registerStatsService(berth::Registrar& r, Context& context) {
  Context* c = &context;
  r.service(std::string(berth::storage_stats::kService),
            berth::ServiceMethods{
                {std::string(berth::storage_stats::kProjects),
                 [c](const json& request) {
                   std::vector<std::string> wanted = berth::storage_stats::parseIdsRequest(request);
                   std::map<std::string, FileUsage> usage = c->store->fileUsage(wanted);
                   berth::storage_stats::ProjectFiles answer;
                   for (const auto& id : wanted) {
                     FileUsage u = usage.count(id) > 0 ? usage[id] : FileUsage{};
                     answer[id] = {u.count, u.bytes};
                   }
                   return berth::storage_stats::toJson(answer);
                 }},
            });

  // The same counts as the Project's files_count and files_bytes: the projects plugin asks
  // whoever owns them through projects.view.v1, once for every project it shows.
  r.hookAnswer(std::string(berth::projects_view::kEvent), [c](const json& payload) {
    std::vector<std::string> ids = berth::projects_view::parseIds(payload);
    if (!c->store) return json();  // not started yet
    try {
      std::map<std::string, FileUsage> usage = c->store->fileUsage(ids);
      json answer = json::object();
      for (const auto& id : ids) {
        auto it = usage.find(id);
        FileUsage u = it != usage.end() ? it->second : FileUsage{};
        answer[id] = berth::projects_view::filesJson(u.count, u.bytes);
      }
      return answer;
    } catch (const std::exception& e) {
      // Answering nothing shows zeros; a refusal would also keep the runtime from answering.
      c->logger().warn(std::string("files of projects unavailable: ") + e.what());
      return json();
    }
  });
}

}  // namespace berth::storage
