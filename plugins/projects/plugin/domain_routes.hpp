// Custom domains: add (with the DNS records to publish), verify through DNS, list, remove.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerDomainRoutes(berth::Registrar& registrar, const Context& context);

// Tells the core every verified domain, so that their traffic reaches the projects.
void publishCustomHosts(const Context& context);

}  // namespace berth::projects
