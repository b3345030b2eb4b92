// Shapes of the text that configuration accepts, shared by the core keys and plugin sections.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace berth::core {

// A plugin id: [a-z][a-z0-9_]* (it also names the plugin's section, schema and library).
bool isPluginId(std::string_view text);

// A plan name: [a-z][a-z0-9_-]* (accounts and teams refer to it on the command line).
bool isPlanName(std::string_view text);

// A lower-case DNS name such as "localhost" or "apps.example.com" (no trailing dot).
bool isLowerCaseDnsName(std::string_view text);

// A positive size in nginx's form: digits with an optional k, m or g ("512k", "2m").
bool isNginxSize(std::string_view text);

// A decimal integer with an optional sign ("+8", "-3", "42"); nullopt when it is anything
// else or does not fit in 64 bits.
std::optional<int64_t> parseInteger(std::string_view text);

}  // namespace berth::core
