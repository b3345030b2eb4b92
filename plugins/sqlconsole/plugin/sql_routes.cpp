// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerSqlRoutes(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
