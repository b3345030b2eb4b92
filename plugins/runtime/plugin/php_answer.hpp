// The gateway's answer for a PHP release (php_route.hpp decides which): a file of the release
// is sent by the edge without waking the app; a script is run by the project's php-cgi,
// started on demand like any app (the request held, without holding a server thread, until
// its FastCGI port accepts connections), and the edge speaks FastCGI to it
// (Responder::fastcgi, ABI 1.2).
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "context.hpp"
#include "project_routing.hpp"

namespace berth::runtime {

// The app spec of the project's live release, asked only when a script is run (files need
// no process, so no directory call either).
using PhpSpecSource = std::function<std::shared_ptr<const AppSpec>()>;

// Given a request whose php-cgi start was ended by a restart or another live release
// (StartOutcome::superseded): serves it again from what is live now and says true, or says
// false (then the 503 is answered).
using PhpRetry = std::function<bool(std::shared_ptr<berth::Exchange>)>;

// cache_ttl: the script's answer may be kept by the edge cache (the host has a rule).
void answerPhp(Context& context, const Project& project, const ReleaseRecord& release,
               const PhpSpecSource& spec, const berth::Request& request,
               berth::Responder& responder, std::optional<std::uint32_t> cache_ttl,
               PhpRetry retry = {});

}  // namespace berth::runtime
