// The body of a WordPress install: {email, password, title?, user?}. The core checks the types
// (422: `missing field: password`, `field title must be a string`); the rules the types cannot
// say are checked here, first thing, before any service is called (400, nothing changed).
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace berth::wordpress {

// The site's title when the body gives none (WordPress's own installer asks for one).
inline constexpr const char* kDefaultTitle = "My WordPress Site";
// The administrator's name when the body gives none.
inline constexpr const char* kDefaultUser = "admin";

struct InstallBody {
  std::string email;     // the administrator's, and the site's admin_email on a new site
  std::string password;  // the administrator's; never logged, never on a command line
  std::string title;     // the given title, else kDefaultTitle
  bool title_given = false;
  std::string user;  // the administrator's login, else kDefaultUser
};

// @throw berth::Error 400 with the first rule the body breaks:
//   "unknown field <name>: a WordPress install takes email, password, title and user"
//   "email must be an e-mail address such as ann@example.com (6 to 100 characters)"
//   "password must be at least 8 characters"
//   "password must be at most 4096 bytes"
//   "password must not start or end with white space (WordPress would cut it off)"
//   "title must be 1 to 200 characters on one line"
//   "user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'"
InstallBody parseInstallBody(const nlohmann::json& body);

// WordPress's is_email() rules (wp-includes/formatting.php), so an address accepted here is
// never refused by wp_install().
bool wordpressEmail(const std::string& email);

}  // namespace berth::wordpress
