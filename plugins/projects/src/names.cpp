#include "names.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>

namespace berth::projects {
namespace {

// A DNS label holds at most 63 characters and the project's host label is "<label>-<slug>".
constexpr std::size_t kMaxHostLabel = 63;

std::size_t maxLabelLength(std::string_view slug) {
  const std::size_t used = slug.size() + 1;  // the hyphen joining label and slug
  return used >= kMaxHostLabel ? 0 : kMaxHostLabel - used;
}

bool isLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

char asciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string trimAndLower(std::string_view raw) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!raw.empty() && blank(raw.front())) raw.remove_prefix(1);
  while (!raw.empty() && blank(raw.back())) raw.remove_suffix(1);
  std::string out(raw);
  std::transform(out.begin(), out.end(), out.begin(), asciiLower);
  return out;
}

bool isReserved(std::string_view label, const std::vector<std::string>& reserved) {
  return std::find(reserved.begin(), reserved.end(), label) != reserved.end();
}

void trimTrailingHyphens(std::string& s) {
  while (!s.empty() && s.back() == '-') s.pop_back();
}

// Turns whatever the caller passed into something that can carry a "-N" suffix, so that
// suggestFreeName keeps its promise of a valid name even for a label that broke the rules.
std::string usableBase(std::string_view label) {
  std::string base;
  for (char c : label) {
    c = asciiLower(c);
    if (isLabelChar(c)) base.push_back(c);
  }
  const auto first = base.find_first_not_of('-');
  base.erase(0, first == std::string::npos ? base.size() : first);
  trimTrailingHyphens(base);
  return base.empty() ? std::string("project") : base;
}

// Uniform in [0, bound) from a secure generator, so suggestions cannot be predicted from
// earlier ones; draws past the last whole multiple of bound are rejected to avoid modulo bias.
std::uint32_t secureBelow(std::uint32_t bound) {
  const std::uint32_t limit = UINT32_MAX - (UINT32_MAX % bound);
  for (;;) {
    std::uint32_t value = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof value) != 1) {
      std::random_device device;  // OpenSSL could not seed; the kernel's source still is secure
      value = device();
    }
    if (value < limit) return value % bound;
  }
}

constexpr std::string_view kAdjectives[] = {
    "quiet",  "bright", "calm",    "brave",  "clever", "eager",  "gentle", "happy",  "jolly",
    "kind",   "lively", "lucky",   "merry",  "proud",  "witty",  "swift",  "sunny",  "cosy",
    "bold",   "keen",   "fresh",   "golden", "silver", "amber",  "azure",  "coral",  "misty",
    "rapid",  "steady", "tidy",    "noble",  "sturdy", "nimble", "mellow", "breezy", "crisp",
    "dapper", "fancy",  "fluffy",  "glossy", "grand",  "handy",  "humble", "loyal",  "magic",
    "modest", "neat",   "plucky",  "polite", "rosy",   "royal",  "shiny",  "silky",  "smooth",
    "snowy",  "spry",   "stellar", "sweet",  "vivid",  "warm"};

constexpr std::string_view kNouns[] = {
    "harbor",  "meadow", "river",  "forest",  "garden",  "island",  "lake",  "valley",  "canyon",
    "summit",  "beacon", "bridge", "cabin",   "castle",  "comet",   "delta", "falcon",  "fjord",
    "glade",   "grove",  "haven",  "heron",   "lagoon",  "lantern", "maple", "marsh",   "mesa",
    "orchard", "otter",  "panda",  "pebble",  "pine",    "planet",  "pond",  "prairie", "puffin",
    "quarry",  "reef",   "ridge",  "robin",   "sparrow", "spring",  "star",  "stream",  "tiger",
    "tulip",   "tundra", "walrus", "willow",  "wren",    "zephyr",  "acorn", "badger",  "cedar",
    "dune",    "ember",  "finch",  "glacier", "koala",   "lotus"};

constexpr std::size_t kAdjectiveCount = std::size(kAdjectives);
constexpr std::size_t kNounCount = std::size(kNouns);
constexpr std::uint32_t kMaxNumber = 999;

// Fits "adjective-noun-number" into max characters by shortening the words, never the number,
// so the result keeps the documented shape. Only reachable with far longer slugs than 12.
std::string fitGenerated(std::string_view adjective, std::string_view noun,
                         const std::string& number, std::size_t max) {
  std::string a(adjective), n(noun);
  while (a.size() + n.size() + number.size() + 2 > max && (a.size() > 1 || n.size() > 1)) {
    if (a.size() >= n.size())
      a.pop_back();
    else
      n.pop_back();
  }
  return a + "-" + n + "-" + number;
}

}  // namespace

NameCheck checkName(std::string_view raw, std::string_view slug,
                    const std::vector<std::string>& reserved) {
  NameCheck check;
  check.label = trimAndLower(raw);
  const std::string& label = check.label;
  const std::size_t max = maxLabelLength(slug);

  if (label.size() < 2) {
    check.problem = "a project name needs at least 2 characters";
  } else if (!std::all_of(label.begin(), label.end(), isLabelChar)) {
    check.problem = "a project name may contain only lower-case letters, digits and hyphens";
  } else if (label.front() == '-' || label.back() == '-') {
    check.problem = "a project name cannot start or end with a hyphen";
  } else if (label.size() > max) {
    check.problem = "that name is too long: with your account's suffix -" + std::string(slug) +
                    " it must fit in 63 characters, so at most " + std::to_string(max) +
                    " characters";
  } else if (isReserved(label, reserved)) {
    check.problem = label + " is reserved by the platform";
  } else {
    check.ok = true;
  }
  return check;
}

std::string suggestFreeName(std::string_view label, std::string_view slug,
                            const std::set<std::string>& taken_labels,
                            const std::vector<std::string>& reserved) {
  const std::string base = usableBase(label);
  const std::size_t max = maxLabelLength(slug);
  // Each N gives a different name (they end in "-N"), so this ends within
  // taken + reserved + 1 steps.
  for (unsigned n = 2;; ++n) {
    const std::string suffix = "-" + std::to_string(n);
    std::string head = base;
    if (head.size() + suffix.size() > max) {
      head.resize(max > suffix.size() ? max - suffix.size() : 0);
      trimTrailingHyphens(head);
      if (head.empty()) head = "p";  // only with slugs far beyond the 12 characters allowed
    }
    std::string candidate = head + suffix;
    if (!taken_labels.contains(candidate) && !isReserved(candidate, reserved)) return candidate;
  }
}

std::string generateName(std::string_view slug, const std::set<std::string>& taken_labels) {
  const std::size_t max = maxLabelLength(slug);
  const auto nameAt = [&](std::uint64_t i) {
    const std::string number = std::to_string(i % kMaxNumber + 1);
    i /= kMaxNumber;
    return fitGenerated(kAdjectives[i % kAdjectiveCount], kNouns[i / kAdjectiveCount % kNounCount],
                        number, max);
  };
  const std::uint64_t combinations = std::uint64_t{kAdjectiveCount} * kNounCount * kMaxNumber;
  const std::uint32_t start = secureBelow(static_cast<std::uint32_t>(combinations));
  // A random start; walking on from it finds a free name in one step unless the account holds
  // millions of projects, and still ends if every combination is taken.
  for (std::uint64_t step = 0; step < combinations; ++step) {
    std::string name = nameAt((start + step) % combinations);
    if (!taken_labels.contains(name)) return name;
  }
  return suggestFreeName(nameAt(start), slug, taken_labels, {});
}

}  // namespace berth::projects
