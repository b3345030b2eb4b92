// Not written yet: registers nothing.
#include "routes.hpp"

namespace berth::sqlconsole {

void registerRowRoutes(berth::Registrar&, Context&) {}

}  // namespace berth::sqlconsole
