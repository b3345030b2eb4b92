// CORS for the browser data API (/_data on project hosts), so that a page on any origin can
// call it with the publishable key. No cookies are involved (the key travels in a header), so
// every origin is allowed with "*".
#pragma once
#include <berth/plugin.hpp>

namespace berth::sqlconsole {

// On every /_data answer, errors included: who may read it and which headers it may see
// (Content-Range carries the count PostgREST clients read).
berth::Headers corsHeaders();

// The answer to a preflight (OPTIONS): the methods and request headers PostgREST clients use,
// plus whatever else the browser says it will send (Access-Control-Request-Headers).
berth::Headers preflightHeaders(const berth::Request& request);

}  // namespace berth::sqlconsole
