// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerStructureRoutes(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
