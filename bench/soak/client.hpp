// One HTTP request of the soak, sent over loopback to berthd's edge, timed and tallied in the
// Recorder under its route family with what the workload expected of it.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "soak/recorder.hpp"
#include "support/http_client.hpp"

namespace berth::soak {

struct Request {
  std::string family;
  std::string method = "GET";
  std::string path;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  std::string host;                  // a project's host (app traffic); empty: the API
  bool token = true;                 // send the account's bearer token (API requests)
  std::set<long> expect = {200};
  bool provoked = false;  // a deliberate bad request: its expected status is an error
  std::string body_has;   // the answer must contain this (an app's marker); empty: anything
  long timeout_ms = 60000;
};

class Client {
 public:
  Client(Recorder& recorder, std::string base_url, std::string token)
      : recorder_(recorder), base_(std::move(base_url)), token_(std::move(token)) {}

  // Sends, times and records; returns the answer whatever it was.
  testing::HttpResult call(const Request& request) const;
  // The same, for set-up: throws with the request and answer unless it was as expected.
  testing::HttpResult must(const Request& request) const;

  static std::string jsonType() { return "Content-Type: application/json"; }

 private:
  Recorder& recorder_;
  std::string base_, token_;
};

}  // namespace berth::soak
