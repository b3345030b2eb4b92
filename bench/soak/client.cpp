#include "soak/client.hpp"

#include <stdexcept>

namespace berth::soak {

namespace {

bool asExpected(const Request& r, const testing::HttpResult& answer) {
  return answer.status != 0 && r.expect.count(answer.status) > 0;
}

std::string describe(const Request& r) {
  std::string out = r.method + " " + r.path;
  if (!r.host.empty()) out += " (Host: " + r.host + ")";
  if (!r.body.empty())
    out += " body " + (r.body.size() > 200 ? std::to_string(r.body.size()) + " bytes" : r.body);
  return out;
}

}  // namespace

testing::HttpResult Client::call(const Request& r) const {
  testing::HttpRequestSpec spec;
  spec.method = r.method;
  spec.url = base_ + r.path;
  spec.body = r.body;
  spec.headers = r.headers;
  spec.timeout_ms = r.timeout_ms;
  if (!r.host.empty()) spec.headers.push_back("Host: " + r.host);
  if (r.token && !token_.empty()) spec.headers.push_back("Authorization: Bearer " + token_);
  const double start = nowSeconds();
  auto answer = testing::send(spec);
  const double ms = (nowSeconds() - start) * 1000.0;
  const bool expected = asExpected(r, answer);
  const bool body_ok = r.body_has.empty() || answer.body.find(r.body_has) != std::string::npos;
  recorder_.record(r.family, describe(r), answer.status,
                   answer.status == 0 ? "(no answer: " + answer.error + ")" : answer.body, ms,
                   expected, r.provoked, body_ok);
  return answer;
}

testing::HttpResult Client::must(const Request& r) const {
  auto answer = call(r);
  if (!asExpected(r, answer) ||
      (!r.body_has.empty() && answer.body.find(r.body_has) == std::string::npos))
    throw std::runtime_error(describe(r) + " answered " + std::to_string(answer.status) + ": " +
                             answer.body.substr(0, 1000) + answer.error);
  return answer;
}

}  // namespace berth::soak
