// Custom domain names accepted on a project.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace berth::projects {

// Lower-cased, trailing dot removed.
std::string normaliseHost(std::string_view host);

// Why host cannot be a custom domain: not a DNS name (labels of 1-63 [a-z0-9-] not starting or
// ending with '-', at least two labels, total <= 253, last label not all digits, no IP address,
// no port, no wildcard), or equal to / under apps_domain. nullopt when acceptable.
std::optional<std::string> hostProblem(std::string_view normalised_host,
                                       std::string_view apps_domain);

}  // namespace berth::projects
