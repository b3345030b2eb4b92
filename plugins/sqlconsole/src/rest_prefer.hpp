// The Prefer request header as PostgREST clients send it (RFC 7240): comma-separated
// preferences, possibly from several header lines joined by ", ". Only what /_data acts on is
// kept; anything else is ignored, as RFC 7240 asks of preferences a server does not know.
#pragma once
#include <string_view>

namespace berth::sqlconsole {

enum class ReturnPreference { Unset, Minimal, HeadersOnly, Representation };
enum class ResolutionPreference { Unset, MergeDuplicates, IgnoreDuplicates };

struct Preferences {
  ReturnPreference return_ = ReturnPreference::Unset;  // return=...
  bool count = false;  // count=exact (planned and estimated are answered exactly too)
  ResolutionPreference resolution = ResolutionPreference::Unset;  // resolution=...
};

Preferences parsePrefer(std::string_view header);

}  // namespace berth::sqlconsole
