// Project name rules (docs/openapi.yaml, POST /projects, the name rules) and generated names.
#pragma once
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace berth::projects {

struct NameCheck {
  bool ok = false;
  std::string label;    // trimmed and lower-cased chosen name
  std::string problem;  // a sentence a person can act on, when !ok
};

// Rules 1-4: trim + lower-case; 2+ characters of [a-z0-9-], not starting or ending with '-';
// label + "-" + slug fits 63 characters; not reserved.
NameCheck checkName(std::string_view raw, std::string_view slug,
                    const std::vector<std::string>& reserved);

// A free variant of label (label-2, label-3 ...; shortened so it still fits with the slug),
// never one of taken_labels and never reserved.
std::string suggestFreeName(std::string_view label, std::string_view slug,
                            const std::set<std::string>& taken_labels,
                            const std::vector<std::string>& reserved);

// Two words and a number ("quiet-harbor-42"), fitting with the slug, not in taken_labels.
std::string generateName(std::string_view slug, const std::set<std::string>& taken_labels);

}  // namespace berth::projects
