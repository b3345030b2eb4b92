// Custom domains: add (with the DNS records to publish), verify through DNS, list, remove.
#pragma once
#include <berth/plugin.hpp>

#include "context.hpp"

namespace berth::projects {

void registerDomainRoutes(berth::Registrar& registrar, const Context& context);

// Unverified claims created before this (Unix seconds) have expired: they are not listed,
// cannot be verified and block nothing, even before removeExpiredDomainClaims() runs.
int64_t domainClaimCutoff(const Context& context);
// Removes the expired claims; returns how many.
int64_t removeExpiredDomainClaims(const Context& context);

// Tells the core every verified domain, so that their traffic reaches the projects.
void publishCustomHosts(const Context& context);

// Migration 0006's NOTIFY when a domain row changes on any node, with the project's id: this
// plugin reads its custom hosts again, the storage plugin drops its edge links to the project.
inline constexpr const char* kDomainsChannel = "berth_project_domains";

}  // namespace berth::projects
