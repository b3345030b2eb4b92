// projects.directory.v1: what other plugins may ask about projects (see README.md).
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerDirectoryService(berth::Registrar& registrar, const Context& context);

}  // namespace berth::projects
