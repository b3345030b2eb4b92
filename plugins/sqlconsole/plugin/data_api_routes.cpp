// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerDataApiRoutes(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
